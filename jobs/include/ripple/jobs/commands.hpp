#pragma once
// The campaign subcommands of `ripple` (dispatched by cli/ripple_main.cpp). Both are the Python
// package jobs/ripple_jobs, run with the batch templates beside it.
namespace ripple::jobs {

// `ripple campaign CAMPAIGN.toml|DIR [--local | --slurm] [--resume] [status]`
int campaign_main(int argc, char** argv);
// `ripple report DIR -o report.html`
int report_main(int argc, char** argv);

}  // namespace ripple::jobs
