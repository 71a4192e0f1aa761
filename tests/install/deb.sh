#!/usr/bin/env bash
# Acceptance 4: cpack -G DEB; the package unpacks (dpkg-deb -x) into the same tree as the install
# (under /usr), its module file names /usr, and dpkg-deb --info lists its Debian dependencies.
source "$(dirname "$0")/lib.sh"
: "${CPACK_COMMAND:=cpack}"
"$CPACK_COMMAND" -G DEB --config "$RIPPLE_BUILD_DIR/CPackConfig.cmake" -B "$PWD/pkg" > cpack.txt 2>&1 ||
  fail "cpack: $(tail -n 10 cpack.txt)"
deb=$(ls pkg/*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { fail "no .deb: $(tail -n 10 cpack.txt)"; finish; }
dpkg-deb -x "$deb" root || fail "dpkg-deb -x"
tree "$RIPPLE_PREFIX" > install-tree.txt
tree root/usr > deb-tree.txt
diff install-tree.txt deb-tree.txt > tree-diff.txt || fail "trees differ: $(head -n 20 tree-diff.txt)"
[ -z "$(cd root && find . -mindepth 1 -maxdepth 1 ! -name usr)" ] || fail "files outside /usr: $(ls root)"
grep -q 'set root "/usr"' root/usr/share/modulefiles/ripple/0.1.0 || fail "the deb's module file does not name /usr"
dpkg-deb --info "$deb" > info.txt || fail "dpkg-deb --info"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for p in libopenmpi3 libhdf5-openmpi libhwloc15 openmpi-bin python3-h5py python3-matplotlib; do
  echo "$depends" | grep -q "$p" || fail "Depends lacks $p"
done
grep -q "Depends:" info.txt || fail "dpkg-deb --info lists no Depends"
[ "$failures" -ne 0 ] || pass "$(basename "$deb"): $(wc -l < deb-tree.txt) files, the install's tree"
finish
