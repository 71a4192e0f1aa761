#pragma once
// Whether a text is well-formed JSON (RFC 8259), for texts a file claims to hold as JSON and that
// a reader passes on inside its own JSON output (`ripple trace info --json` embeds `sources`): a
// damaged one must be refused, not make the output unparsable.
#include <string_view>

namespace ripple {

// True if `text` is one JSON object (whitespace around it allowed), checked by nlohmann::json.
bool is_json_object(std::string_view text);

}  // namespace ripple
