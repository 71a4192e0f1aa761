#!/usr/bin/env python3
"""Generates the PMPI wrappers of libripple-trace from mpi_functions.txt.

usage: gen_wrappers.py mpi_functions.txt OUT_DIR
Writes OUT_DIR/call_list.inc (one RIPPLE_CALL(name) per function, for the call-id enum and names)
and OUT_DIR/wrappers.cpp. Each wrapper only does: re-entry guard and enter timestamp (Scope), the
PMPI call, then records the arguments its roles name (the Scope commits the event on return).
"""
import re
import sys

PROTO = re.compile(r"^\s*int\s+(MPI_\w+)\s*\((.*)\)\s*$")


def parse(path):
    functions = []
    for lineno, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(";")]
        if len(parts) != 3:
            sys.exit(f"{path}:{lineno}: expected 'prototype ; kind ; roles'")
        m = PROTO.match(parts[0])
        if not m:
            sys.exit(f"{path}:{lineno}: cannot parse prototype '{parts[0]}'")
        name, params = m.group(1), m.group(2).strip()
        args = []
        if params != "void":
            for p in params.split(","):
                p = p.strip()
                pm = re.match(r"^(.*?)(\w+)(\[\])?$", p)
                if not pm:
                    sys.exit(f"{path}:{lineno}: cannot parse parameter '{p}'")
                args.append(pm.group(2))
        roles = dict(r.split("=") for r in parts[2].split()) if parts[2] else {}
        for role, arg in roles.items():
            if arg not in args:
                sys.exit(f"{path}:{lineno}: role {role}={arg} names no parameter of {name}")
        functions.append({"name": name, "params": params, "args": args, "kind": parts[1], "roles": roles})
    return functions


def wrapper(f):
    name, args, roles, kind = f["name"], ", ".join(f["args"]), f["roles"], f["kind"]
    call = f"P{name}({args})"
    body = []
    if kind == "init":
        body.append(f"  const int rc = {call};")
        body.append(f"  ripple::trace::start(ripple::trace::Call::{name}, __builtin_return_address(0));")
        body.append("  return rc;")
    elif kind == "finalize":
        body.append(f"  ripple::trace::stop(__builtin_return_address(0));")
        body.append(f"  return {call};")
    else:
        if kind in ("file_write", "file_free"):  # the tracer's own trace file, while it writes it: trace_file_guard.hpp
            handle = "*fh" if kind == "file_free" else roles["file"]
            body.append(f"  if (ripple::trace::is_trace_file({handle})) [[unlikely]]")
            if "status" in roles:  # a write: of `count`, or of none where this rank no longer writes
                st, n = roles["status"], roles["count"]
                inner = ", ".join("ripple_st" if a == st else "ripple_n" if a == n else a for a in f["args"])
                collective = "true" if name.endswith("_all") else "false"
                body.append(f"    return ripple::trace::trace_file_write([&](MPI_Status* ripple_st, int ripple_n) {{ return P{name}({inner}); }}, "
                            f"{st}, {n}, {roles['type']}, {collective});")
            else:
                body.append(f"    return ripple::trace::trace_file_change([&] {{ return {call}; }});")
        body.append(f"  ripple::trace::Scope scope(ripple::trace::Call::{name}, __builtin_return_address(0));")
        if kind == "abort":  # PMPI_Abort does not return: record the call, spool everything, then abort
            body.append(f"  if (scope.recording()) scope.comm({roles['comm']});")
            body.append("  scope.commit_now();")
            body.append("  ripple::trace::abort_flush();")
        if kind == "comm_free":  # the communicator freed is the event's
            body.append("  if (scope.recording()) scope.comm(*comm);")
            body.append("  ripple::trace::forget_comm(*comm);")
        if kind == "win_free":  # the window's communicator is the event's
            body.append("  if (scope.recording()) scope.window(*win);")
            body.append("  ripple::trace::forget_window(*win);")
        if kind == "file_free":  # the file's communicator, before MPI_File_close sets the handle to MPI_FILE_NULL
            body.append("  const MPI_File ripple_file = *fh;")
            body.append("  if (scope.recording()) scope.file(ripple_file);")
        if kind == "type_free":
            body.append("  ripple::trace::forget_datatype();")
        # Completion calls: remember the request handles (MPI overwrites completed ones) and make
        # sure there are statuses to read the source and size from, even if the caller ignores them.
        args_list = list(f["args"])
        if "status" in roles:
            st = roles["status"]
            body.append(f"  MPI_Status* ripple_status = scope.status({st});")
            args_list[args_list.index(st)] = "ripple_status"
        if "statuses" in roles:
            st = roles["statuses"]
            body.append(f"  MPI_Status* ripple_statuses = scope.statuses({st}, {roles['count']});")
            args_list[args_list.index(st)] = "ripple_statuses"
        if "complete" in roles:
            body.append(f"  scope.snapshot({roles['complete']}, 1);")
        if "completes" in roles:
            body.append(f"  scope.snapshot({roles['completes']}, {roles['count']});")
        if "free" in roles:
            body.append(f"  scope.forget_request({roles['free']});")
        if "taken" in roles:  # before the call, which sets the handle to MPI_MESSAGE_NULL
            body.append(f"  scope.taking({roles['taken']});")
        call = f"P{name}({', '.join(args_list)})"
        body.append(f"  const int rc = {call};")
        if kind == "file_free":  # recording or not; a close that failed leaves the file open
            body.append("  if (rc == MPI_SUCCESS) ripple::trace::forget_file(ripple_file);")
        if kind == "type_free":  # again: another thread may have cached the type's size meanwhile
            body.append("  ripple::trace::forget_datatype();")
        rec = []
        # At an intercommunicator root (MPI_ROOT) or a non-root of its group (MPI_PROC_NULL) the
        # send buffer and type are not significant: they may be anything, so they are not read.
        significant = ""
        if roles.get("peer") == "root" and roles.get("buf") in ("sendbuf", "recvbuf"):
            significant = "if (root != MPI_ROOT && root != MPI_PROC_NULL) "
        elif roles.get("peer") == "root" and "buf" in roles:  # a broadcast: the root's buffer is its data
            significant = "if (root != MPI_PROC_NULL) "
        if "counts" in roles and roles.get("peer") == "root":
            sys.exit(f"{name}: a counts role with a root: the counts mean something at the root only")
        if "counts" in roles:  # a v-collective: one count (and displacement) per rank or neighbour
            b = roles["buf"]
            displs = roles.get("displs", "nullptr")
            over = "neighbors" if "neighbor" in name.lower() else "local_group" if "reduce_scatter" in name.lower() else "peers"
            tail = f"{roles['comm']}, ripple::trace::Scope::Over::{over});"
            if "incounts" in roles:  # in place, the receive side's counts, displacements and type
                rec.append(f"if ({b} == MPI_IN_PLACE) scope.buffer_v({roles['inplace']}, {roles['incounts']}, "
                           f"{roles.get('indispls', 'nullptr')}, {roles['intype']}, {tail}")
                rec.append(f"else scope.buffer_v({b}, {roles['counts']}, {displs}, {roles['type']}, {tail}")
            else:
                if "inplace" in roles:
                    b = f"{b} == MPI_IN_PLACE ? {roles['inplace']} : {b}"
                rec.append(f"scope.buffer_v({b}, {roles['counts']}, {displs}, {roles['type']}, {tail}")
        elif "buf" in roles and "alltoall" in name.lower():  # a count per member: the whole buffer is recorded
            over = "neighbors" if "neighbor" in name.lower() else "peers"
            b, count, typ, tail = roles["buf"], roles["count"], roles["type"], f"{roles['comm']}, ripple::trace::Scope::Over::{over});"
            if "inplace" in roles:
                rec.append(f"if ({b} == MPI_IN_PLACE) scope.buffer_each({roles['inplace']}, {roles['incount']}, {roles['intype']}, {tail}")
                rec.append(f"else scope.buffer_each({b}, {count}, {typ}, {tail}")
            else:
                rec.append(f"scope.buffer_each({b}, {count}, {typ}, {tail}")
        elif "buf" in roles and "inplace" in roles:
            b, ip = roles["buf"], roles["inplace"]
            count, typ = roles["count"], roles["type"]
            rec.append(f"{significant}{{")
            if "incounts" in roles:  # a v-collective in place: this rank's own entry of the counts
                rec.append(f"  if ({b} == MPI_IN_PLACE) scope.buffer_own({ip}, {roles['incounts']}, {roles['intype']}, {roles['comm']});")
            else:
                rec.append(f"  if ({b} == MPI_IN_PLACE) scope.buffer({ip}, {roles.get('incount', count)}, {roles.get('intype', typ)});")
            rec.append(f"  else scope.buffer({b}, {count}, {typ});")
            rec.append("}")
        elif "buf" in roles:
            rec.append(f"{significant}scope.buffer({roles['buf']}, {roles['count']}, {roles['type']});")
        elif "count" in roles:
            rec.append(f"scope.count({roles['count']});")
        if "comm" in roles:
            rec.append(f"scope.comm({roles['comm']});")
        if "win" in roles:
            rec.append(f"scope.window({roles['win']});")
        if "file" in roles:
            rec.append(f"scope.file({roles['file']});")
        if "peer" in roles and "win" in roles:
            rec.append(f"scope.window_peer({roles['peer']});")
        elif "peer" in roles:
            rec.append(f"scope.peer({roles['peer']}, {roles['comm']});")
        if "tag" in roles:
            rec.append(f"scope.tag({roles['tag']});")
        if "request" in roles:  # an erroneous call leaves *request undefined (MPI-IO returns its errors)
            kind = [k for k, is_kind in (("kReceive", name in ("MPI_Irecv", "MPI_Recv_init", "MPI_Imrecv")),
                                         ("kPersistent", name.endswith("_init")), ("kFileAccess", "file" in roles)) if is_kind]
            kind = " | ".join(f"ripple::trace::Scope::{k}" for k in kind) or "0"
            rec.append(f"if (rc == MPI_SUCCESS) scope.request({roles['request']}, {kind});")
        if "cancel" in roles:
            rec.append(f"if (rc == MPI_SUCCESS) scope.cancelling({roles['cancel']});")
        # A failed completion call (under MPI_ERRORS_RETURN) may leave index, outcount and indices
        # undefined: they are read only when MPI reports success (or errors per status); otherwise
        # the requests completed are those whose handles MPI freed.
        ok = "(rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)"
        done_flag = f"{ok} && *{roles['flag']}" if "flag" in roles else ok
        if "complete" in roles or "completes" in roles:
            rec.append("if (rc == MPI_ERR_IN_STATUS) scope.errors_in_status();")
            if "complete" in roles:
                rec.append(f"if ({done_flag}) scope.completed_one(0, ripple_status);")
            elif "outcount" in roles:
                rec.append(f"if ({ok}) scope.completed_some(*{roles['outcount']}, {roles['indices']}, ripple_statuses);")
            elif "index" in roles:
                rec.append(f"if ({done_flag} && *{roles['index']} != MPI_UNDEFINED) scope.completed_one(*{roles['index']}, ripple_status);")
            else:
                rec.append(f"if ({done_flag}) scope.completed_all({roles['count']}, ripple_statuses);")
            # A call that failed otherwise (a request's error) did complete the requests whose handles
            # MPI freed (a failed request is freed); only a single request's status is read.
            reqs, n = (roles["complete"], "1") if "complete" in roles else (roles["completes"], roles["count"])
            st = "ripple_status" if "status" in roles else "nullptr"
            rec.append(f"if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) scope.completed_failed({reqs}, {n}, {st});")
        elif "recvpeer" in roles:
            rec.append(f"if (rc == MPI_SUCCESS) scope.received({roles['recvpeer']}, ripple_status, {roles['comm']});")
        elif "status" in roles and "file" in roles:
            rec.append(f"if (rc == MPI_SUCCESS) scope.transferred(ripple_status);")
        elif "status" in roles and "peer" in roles:
            rec.append(f"if ({done_flag}) scope.resolve_source(ripple_status, {roles['comm']});")
        elif "status" in roles and "taken" in roles:
            rec.append(f"if ({ok}) scope.received_message(ripple_status);")
        if "message" in roles:
            rec.append(f"if ({done_flag}) scope.probed({roles['message']});")
        if "start" in roles:
            rec.append(f"scope.started({roles['start']}, 1);")
        if "starts" in roles:
            rec.append(f"scope.started({roles['starts']}, {roles['count']});")
        if kind == "comm_new":
            rec.append(f"if (rc == MPI_SUCCESS) ripple::trace::register_comm(*{roles['newcomm']});")
        if kind == "file_new":
            rec.append(f"if (rc == MPI_SUCCESS) ripple::trace::register_file(*{roles['newfile']}, {roles['comm']});")
        if kind == "win_new":
            rec.append(f"if (rc == MPI_SUCCESS) ripple::trace::register_window(*{roles['newwin']}, {roles['comm']});")
        if rec:
            body.append("  if (scope.recording()) {")
            body += ["    " + r for r in rec]
            body.append("  }")
        body.append("  return rc;")
    return f'extern "C" RIPPLE_TRACE_EXPORT int {name}({f["params"]}) {{\n' + "\n".join(body) + "\n}\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    functions = parse(sys.argv[1])
    out = sys.argv[2]
    with open(f"{out}/call_list.inc", "w") as f:
        f.write("// Generated from tracer/mpi_functions.txt by gen_wrappers.py. Do not edit.\n")
        for fn in functions:
            f.write(f"RIPPLE_CALL({fn['name']})\n")
        f.write("RIPPLE_CALL(MPI_Pcontrol)\n")
        f.write("RIPPLE_CALL(completion)  // one per request a completion call completed\n")
    with open(f"{out}/wrappers.cpp", "w") as f:
        f.write("// Generated from tracer/mpi_functions.txt by gen_wrappers.py. Do not edit.\n")
        f.write('#include <mpi.h>\n\n#include "recorder.hpp"\n#include "trace_file_guard.hpp"\n\n')
        for fn in functions:
            f.write(wrapper(fn) + "\n")


if __name__ == "__main__":
    main()
