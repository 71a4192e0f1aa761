"""Campaigns over Ripple's batch templates and the report of their results.

A campaign directory (`ripple campaign` writes it, `ripple report` reads it):

    DIR/campaign.toml       the campaign file, as run
    DIR/points.json         {"campaign": NAME, "template": T, "points": [{"id": "003", "params": {..},
                             "args": [template arguments], "ntasks": N}]}
    DIR/points/ID/          the point's outputs: what the template writes (--out), its provenance.txt,
                            point.log (the template's output) and result.json, written whole (renamed
                            into place) when the point ends: {"id", "status": "done"|"failed",
                            "error", "params", "results": {name: number or text}, "job", "seconds"}
    DIR/slurm.json          the Slurm submissions: [{"array": JOBID, "aggregate": JOBID, "ids": [..]}]
    DIR/table.csv, table.h5 one row per point: id, status, parameters, results, error
"""
