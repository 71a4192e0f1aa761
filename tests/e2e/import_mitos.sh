#!/usr/bin/env bash
# `ripple import mitos` end to end: synthetic fixtures of both Mitos formats (mitoshooks, laid out as
# caps-tum/mitos writes its merged result directory, and the simulator variant) become traces that
# `ripple trace info` accepts; a hand-made simulator run gives, through `ripple cxl`, the per-tag
# costs computed by hand below (the published tool's conventions: whole ns per call in the MPI
# transfer, samples by address alone, ns = cycles / CLOCK_GHZ, rate 1, MLAT = 64 L3_LDM / LD_INS);
# bad input: one line, exit code 2 each.
source "$(dirname "$0")/lib.sh"
one_error() {  # one_error NAME PATTERN ARGS...: `ripple ARGS` exits 2 with one error line
  local name=$1 pattern=$2; shift 2
  local rc=0
  "$RIPPLE_BIN" "$@" > out.txt 2> err.txt || rc=$?
  if [ "$rc" -eq 2 ] && [ "$(grep -c '^ripple: error' err.txt)" -eq 1 ] && grep -q -- "$pattern" err.txt; then pass "$name"
  else fail "$name: rc $rc: $(cat err.txt)"; fi
}

# The hand-made simulator run: 2 ranks, 1 s, two iterations; per rank and iteration an Irecv of tag 1
# (125 x 8 B into 0x1000 + 0x1000 * rank) and of tag 2 (512 x 8 B into 0x10000 * (rank + 1)).
/usr/bin/python3 - <<'PY'
import os
os.makedirs("sim", exist_ok=True)
rows = []
for rank in (0, 1):
    peer = 1 - rank
    rows.append(f"{rank};MPI_Init;0x400100;0;0.001;0;0;0;-1;0;-1;-1")
    for k in (0, 1):
        t = 0.1 + 0.4 * k
        a, b = 0x1000 + 0x1000 * rank, 0x10000 * (rank + 1)
        r = 10 * (k + 1)
        rows += [f"{rank};MPI_Irecv;0x401a10;{t};{t + 0.001};{hex(a)};125;8;{peer};0;{r + 1};1",
                 f"{rank};MPI_Irecv;0x401b20;{t + 0.002};{t + 0.003};{hex(b)};512;8;{peer};0;{r + 2};2",
                 f"{rank};MPI_Isend;0x401c30;{t + 0.004};{t + 0.005};0x90000;125;8;{peer};0;{r + 3};1",
                 f"{rank};MPI_Isend;0x401c40;{t + 0.006};{t + 0.007};0xa0000;512;8;{peer};0;{r + 4};2"]
        rows += [f"{rank};MPI_Wait;0x401d50;{t + 0.01 * i};{t + 0.01 * i + 0.005};{r + i};0;0;-1;0;-1;-1" for i in (1, 2, 3, 4)]
    rows.append(f"{rank};MPI_Finalize;0x400200;0.99;1.0;0;0;0;-1;0;-1;-1")
open("sim/mpi_trace.csv", "w").write("\n".join(rows) + "\n")
# time,addr,core,level,latency(cycles at 2 GHz),prefetched,pid,command,mshr; pid 100 is rank 0, 200 rank 1.
open("sim/samples.csv", "w").write("""time,addr,core,level,latency,prefetched,pid,command,mshr
0.2,0x1008,0,L1,20,false,100,heat,false
0.25,0x1040,0,L2,40,true,100,heat,false
0.3,0x1080,0,L3,120,false,100,heat,true
0.35,0x10000,0,Mem,400,false,100,heat,false
0.4,0x10100,0,L1,8,false,100,heat,false
0.45,0x50000,0,Mem,400,false,100,heat,false
0.2,0x2000,1,Mem,300,false,200,heat,false
0.3,0x20040,1,L2,30,true,200,heat,false
""")
open("sim/counters.csv", "w").write("key,value\nPAPI_LD_INS,1000000000\nPAPI_L1_LDM,50000000\nPAPI_L3_LDM,1640625\nPAPI_TOT_CYC,2000000000\n")
# The machine: seed 003's values, the cross-NUMA DDR case (CXL_LAT 154, atomics 210), a 2 GHz clock.
keys = dict(MPI_RECV_LAT=320, MPI_RECV_BW=9.444e9, LOCAL_MEM_LAT=86, FAR_MEM_LAT=154, SHM_ATOMIC_LAT=191,
            CXL_REMOTE_LAT=154, CXL_REMOTE_ATOMIC_LAT=210, L1_BW=200e9, L2_BW=52e9, MEM_BW=73e9, PEAK_MEM_BW=73e9,
            CLOCK_GHZ=2, MBW_THR_L=0.03, MBW_THR_U=0.33, MLAT_THR_L=0.01, MLAT_THR_U=0.2, CBW_THR_L=0.1, CBW_THR_U=0.75,
            CLAT_THR_L=0.05, CLAT_THR_U=0.5, LPF_LAT=1.5, LPF_BW=3, COMPUTE_MAX_WEIGHT=0.5, MIXED_MAX_WEIGHT=0.5,
            MBW_DEMAND_HIT_FRACTION=0.875, CBW_DEMAND_HIT_FRACTION=0.875)
open("machine.toml", "w").write("".join(f'[{k}]\nvalue = {float(v)!r}\nsource = "given"\nhow = "test"\nspread = 0.0\n\n' for k, v in keys.items()))
PY
"$RIPPLE_BIN" import mitos sim -o sim.h5 > import.txt 2>&1 && grep -q "Mitos simulator, 2 ranks" import.txt \
  && pass "import: simulator run" || fail "import simulator: $(cat import.txt)"
"$RIPPLE_BIN" trace info sim.h5 > info.txt 2>&1 && pass "trace info accepts the simulator import" || fail "trace info: $(cat info.txt)"
# The same run as the simulator's tracer lays it out: data/samples.csv, data/mpi_traces.csv with
# each record ending in `;` (told from mitoshooks by the samples' header).
mkdir -p simdata/data && cp sim/samples.csv sim/counters.csv simdata/data/ && sed 's/$/;/' sim/mpi_trace.csv > simdata/data/mpi_traces.csv
"$RIPPLE_BIN" import mitos simdata -o simdata.h5 > import3.txt 2>&1 && [ "$(cut -d: -f2- import3.txt)" = "$(cut -d: -f2- import.txt)" ] \
  && pass "import: the simulator's files under data/, records ending in ';'" || fail "import simdata: $(cat import3.txt)"
"$RIPPLE_BIN" cxl sim.h5 --machine machine.toml --json sim.json > cxl.txt 2>&1 || fail "cxl on the import: $(cat cxl.txt)"
# By hand. Counters: MLAT = 64 * 1640625 / 1e9 = 0.105, weight ((0.105 - 0.01) / 0.19)^2 = 0.25; MBW
# (64 * 1640625 B/s / 73e9), CBW (64 * 5e7 / 52e9) and CLAT (0.05) are at or below their lower
# thresholds: 0. Compute = 0.5 * (1 - 0.25) = 0.375; normalised MLAT 0.4, Compute 0.6.
# A sample of lat ns costs over MPI lat (0.4 / 1.5 + 0.6 / 3) = 7/15 lat; over CXL (4/15) MLAT + 0.2
# Compute with MLAT: hit lat, LFB lat + 68, miss 154; Compute: hit lat, LFB lat + 34, miss 154.
# Tag 1: samples 10 ns demand hit, 20 ns prefetch hit, 60 ns LFB (mshr), 150 ns miss (rank 1):
#   MPI access 240 * 7/15 = 112; CXL 70/15 + 140/15 + (4/15 128 + 0.2 94) + 154 * 7/15 = 138.8.
#   Transfer, 4 receives of 1000 B: MPI 4 (320 + floor(105.88)) = 1700, CXL 4 * 420 = 1680.
# Tag 2: 200 ns miss, 4 ns demand hit, 15 ns prefetch hit (rank 1): MPI 219 * 7/15 = 102.2; CXL
#   154 * 7/15 + 28/15 + 7 = 80.7333...; transfer, 4 receives of 4096 B: MPI 4 (320 + floor(433.7))
#   = 3012, CXL 1680. The sample at 0x50000 lies in no buffer.
/usr/bin/python3 - <<'PY' && pass "cxl: the hand-computed per-tag costs" || fail "cxl per tag: $(cat cxl.txt)"
import json
r = json.load(open("sim.json"))
assert r["conventions"] == "published", r["conventions"]
assert abs(r["weights"]["MLAT"] - 0.4) < 1e-12 and abs(r["weights"]["Compute"] - 0.6) < 1e-12, r["weights"]
want = {1: (1700, 112, 1680, 138.8), 2: (3012, 102.2, 1680, 80.7 + 1 / 30)}
got = {g["tag"]: g for g in r["groups"]}
assert sorted(got) == [1, 2], got.keys()
for tag, (mt, ma, ct, ca) in want.items():
    g = got[tag]
    for k, v in (("mpi_transfer_ns", mt), ("mpi_access_ns", ma), ("cxl_transfer_ns", ct), ("cxl_access_ns", ca)):
        assert abs(g[k] - v) < 1e-9, (tag, k, g[k], v)
    assert g["receives"] == 4 and abs(g["diff_ns"] - (mt + ma - ct - ca)) < 1e-9, g
saved = (1700 + 112 - 1680 - 138.8 + 3012 + 102.2 - 1680 - 80.7 - 1 / 30) * 1e-9 / 2
assert abs(r["speedup"] - 1 / (1 - saved)) < 1e-12, r["speedup"]
PY
# The text says the same to its printed digits (ms, 3 decimals): tag 2's MPI total 3.114, CXL 1.761.
grep -Eq "0x401b20 +2 +4 +16384 +3.012 +0.102 +1.680 +0.081 +3.114 +1.761 +1.353" cxl.txt \
  && pass "cxl: the text table" || fail "cxl text: $(cat cxl.txt)"
# Ripple's own conventions read the same counters as MLAT = L3_LDM / LD_INS (0.0016: weight 0).
"$RIPPLE_BIN" cxl sim.h5 --machine machine.toml --conventions ripple --json ripple.json > /dev/null 2>&1
/usr/bin/python3 -c 'import json; r = json.load(open("ripple.json")); assert r["conventions"] == "ripple" and r["weights"]["Compute"] == 1, r["weights"]' \
  && pass "cxl: --conventions ripple" || fail "cxl --conventions ripple"

# mitoshooks (caps-tum/mitos), its merged result directory: data/samples.csv with Mitos's header
# (mitoshooks writes the rank into pid; time in ns of the system clock; decimal addresses),
# data/mpi_traces.csv (`;`, no header, each record ending in `;`, a shape per call; a request is the
# address of its MPI_Request variable, MPI_Waitall names its array and length), the PAPI run's
# data/papi_measurements_RANK.csv (name,value lines) and hardware.xml.
/usr/bin/python3 - <<'PY'
import os
os.makedirs("hooks/data", exist_ok=True); os.makedirs("hooks/hwdata", exist_ok=True)
open("hooks/hardware.xml", "w").write('<?xml version="1.0"?>\n<topology/>\n')
epoch = 1765100000000000000  # ns since 1970: beyond a double's 53 bits
h = "source,line,instruction,bytes,virt_addr_offset,ip,variable,buffer_size,dims,xidx,yidx,zidx,pid,tid,time,addr,cpu,latency,level,hit_type,op_type,snoop_mode,tlb_access,numa\n"
rows = [f"??,??,??,??,4194304,4198400,??,0,0,0,0,0,0,100,{epoch + 2000000},4104,0,30,L1,Hit,Load,Snoop None,TLB Hit,0",
        f"??,??,??,??,4194304,4198404,??,0,0,0,0,0,0,100,{epoch + 2500000},4160,0,250,Local RAM,Hit,Load,Snoop Hit,TLB Hit,0",
        f"??,??,??,??,4194304,4198408,??,0,0,0,0,0,1,200,{epoch + 2600000},8192,1,90,LFB,Hit,Load,Snoop None,TLB Hit,0",
        f"??,??,??,??,4194304,4198412,??,0,0,0,0,0,1,200,{epoch + 2700000},8256,1,60,L3,Hit,Load,Snoop None,TLB Hit,0"]
open("hooks/data/samples.csv", "w").write(h + "\n".join(rows) + "\n")
m = []
for rank in (0, 1):
    request = 140720000000000 + 64 * rank  # &request on the rank's stack
    m += [f"{rank};MPI_Init;4196864;{epoch};{epoch + 500000};",
          f"{rank};MPI_Irecv;4201000;{epoch + 1000000};{epoch + 1001000};{4096 * (rank + 1)};16;MPI_DOUBLE;{1 - rank};MPI_COMM_WORLD;{request};3;"]
    # rank 0 waits for its one request, rank 1 for an array of one
    m += [f"0;MPI_Wait;4201808;{epoch + 1500000};{epoch + 1800000};{request};" if rank == 0 else
          f"1;MPI_Waitall;4201808;{epoch + 1500000};{epoch + 1800000};{request};1;",
          f"{rank};MPI_Finalize;4196992;{epoch + 9000000};{epoch + 9000000};"]
open("hooks/data/mpi_traces.csv", "w").write("\n".join(m) + "\n")
for rank in (0, 1):
    open(f"hooks/data/papi_measurements_{rank}.csv", "w").write(
        "PAPI_LD_INS,4000\nPAPI_L1_LDM,100\nPAPI_L3_LDM,10\nPAPI_TOT_CYC,9000\ntime,9000000\nmem_traffic,64000\n"
        "LD_density,0.444444\nL1_miss_density,40\nmem_hit_density,400\n")
PY
"$RIPPLE_BIN" import mitos hooks -o hooks.h5 > import2.txt 2>&1 && grep -q "Mitos mitoshooks, 2 ranks" import2.txt \
  && pass "import: mitoshooks output" || fail "import mitoshooks: $(cat import2.txt)"
"$RIPPLE_BIN" trace info hooks.h5 > info2.txt 2>&1 && pass "trace info accepts the mitoshooks import" || fail "trace info: $(cat info2.txt)"
# Times from the run's first record, to the ns; per rank Init, Irecv, the wait (Waitall on rank 1)
# and the receive's completion at its exit, Finalize; the samples on the rank their pid names.
/usr/bin/python3 - <<'PY' && pass "mitoshooks: times to the ns, Wait and Waitall complete the receive, ranks from pid" || fail "mitoshooks events"
import h5py
f = h5py.File("hooks.h5")
e, s = f["events"][:], f["samples/records"][:]
for rank in (0, 1):
    mine = e[e["rank"] == rank]
    assert [round(t * 1e9) for t in mine["t_enter"]] == [0, 1000000, 1500000, 1800000, 9000000], mine
    assert abs(mine["t_enter"][1] - 0.001) < 1e-15 and mine["bytes"][1] == 128 and mine["count"][2] == 1, mine
    assert mine["tag"][3] == 3 and mine["bytes"][3] == 128 and mine["peer"][3] == 1 - rank, mine
assert [round(t * 1e9) for t in s["time"]] == [2000000, 2500000, 2600000, 2700000] and list(s["rank"]) == [0, 0, 1, 1], s
PY
"$RIPPLE_BIN" cxl hooks.h5 --machine machine.toml --json hooks.json > cxl2.txt 2>&1 || fail "cxl on mitoshooks: $(cat cxl2.txt)"
# Rate = PAPI_LD_INS / samples = 8000 / 4; every sample lies in a receive buffer of its rank.
/usr/bin/python3 - <<'PY' && pass "cxl on the mitoshooks import" || fail "cxl mitoshooks: $(cat cxl2.txt)"
import json
r = json.load(open("hooks.json"))
assert r["conventions"] == "ripple" and r["access"]["rate"] == 2000, r["access"]
assert len(r["groups"]) == 1 and r["groups"][0]["tag"] == 3 and r["groups"][0]["receives"] == 2, r["groups"]
assert r["total"]["samples"] == 4 and r["total"]["mpi_transfer_ns"] == 2 * (320 + 13), r["total"]
PY

# The figure (`ripple plot cxl`): per tag MPI vs CXL bars, one group per result, and the speed-ups.
"$RIPPLE_BIN" plot cxl sim.json hooks.json --labels simulator,mitoshooks -o cxl.png > plot.txt 2>&1 \
  && /usr/bin/python3 -c 'import sys; h = open("cxl.png", "rb").read(8); sys.exit(h != b"\x89PNG\r\n\x1a\n")' \
  && pass "plot cxl: a PNG of two results" || fail "plot cxl: $(cat plot.txt)"
one_error "plot cxl: --labels of another count" "names 1 results, but 2" plot cxl sim.json hooks.json --labels one -o x.png
echo '{"schema": "ripple-waves", "schema_version": 1}' > waves.json
one_error "plot cxl: not a ripple-cxl result" "not a ripple-cxl file" plot cxl waves.json -o x.png
one_error "plot cxl: not JSON" "not JSON" plot cxl machine.toml -o x.png

# Bad input.
cp -r sim nocounters && rm nocounters/counters.csv
one_error "import: a directory missing a file" "no counters.csv" import mitos nocounters -o x.h5
cp -r hooks nompi && rm nompi/data/mpi_traces.csv
one_error "import: mitoshooks without its MPI records" "no data/mpi_traces.csv" import mitos nompi -o x.h5
# A record cut short (no final `;`) is malformed; one whose datatype is a handle (mitoshooks names
# only MPI_DOUBLE and MPI_INT) is well formed but its bytes are unknown: left out, said in a note.
cp -r hooks cut && e=1765100000000000000 && {
  echo "1;MPI_Irecv;4201000;$((e + 2000000));$((e + 2001000));8192;16;1275070475;0;MPI_COMM_WORLD;140720000000064;4;"
  echo "1;MPI_Irecv;4201000;$((e + 3000000));$((e + 3001000));8192;16;MPI_DOUBLE;0;MPI_COMM_WORLD;1407200000"
} >> cut/data/mpi_traces.csv
rc=0; "$RIPPLE_BIN" import mitos cut -o cut.h5 > cut.txt 2> cut.err || rc=$?
[ "$rc" = 2 ] && grep -q "1 malformed rows left out" cut.err && grep -q "note: 1 send or receive records name their datatype by a handle" cut.txt \
  && grep -q "10 events (2 receives)" cut.txt && pass "import: a record cut short is malformed, a handle's datatype said and left out" \
  || fail "cut records (exit $rc): $(cat cut.txt cut.err)"
one_error "import: not a Mitos directory" "neither mitoshooks output" import mitos . -o x.h5
cp -r sim bad && printf '0;MPI_Irecv;zzz;1;2\n' >> bad/mpi_trace.csv && printf '0.5,0x1000,0,L9,20,false,100,heat,false\n0.5,0x1000\n' >> bad/samples.csv
one_error "import: malformed rows counted and said" "3 malformed rows left out, the rest imported" import mitos bad -o bad.h5
"$RIPPLE_BIN" cxl bad.h5 --machine machine.toml --json bad.json > /dev/null 2>&1 \
  && /usr/bin/python3 -c 'import json; a, b = json.load(open("bad.json")), json.load(open("sim.json")); assert a["groups"] == b["groups"]' \
  && pass "import: the rest of a malformed run is imported whole" || fail "malformed: the rest differs"
"$RIPPLE_BIN" import mitos bad -o bad.h5 --allow-malformed > /dev/null 2>&1 && pass "import: --allow-malformed exits 0" \
  || fail "--allow-malformed"
finish
