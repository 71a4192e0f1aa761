#pragma once
// Small text outputs (JSON summaries): written whole or not at all. An std::ofstream reports a full
// disk only when its buffer reaches the file, often in its destructor, where nobody looks; this
// checks every write and the close, and names the system's reason.
#include <string>
#include <string_view>

namespace ripple {

// Writes `text` to `path`. A new file, or a regular file of this user's that it may write and that
// has no other hard link, is replaced whole, through a temporary file beside it renamed over it
// (its permissions kept): a failed write, or a full disk when the temporary file is made, leaves an
// earlier file as it was. Anything else (a link, a device, a FIFO, another user's or a hard-linked
// file) is written through in place, as is a file in a directory that takes no new file. A path that names no writable place (no
// such directory, no permission, a directory, a read-only file system) is an InputError; a refusal of the system (a full disk, a
// quota, an I/O error, at the open, a write or the close) an Error. Either way the message starts with `what` and names the path
// and the reason, and no partial regular file is left behind (a link's target is not removed).
void write_text_file(const std::string& path, std::string_view text, std::string_view what);

// At the end of a program: flushes standard output, and if it could not all be written (a full disk
// behind `> file`, a closed descriptor) says so on standard error and turns an exit code of 0 into 1,
// so that `ripple trace info --json F > out.json` on a full disk does not succeed with an empty file.
int finish_standard_output(int exit_code);

}  // namespace ripple
