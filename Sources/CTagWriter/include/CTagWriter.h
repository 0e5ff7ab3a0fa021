#ifndef CADENZA_TAG_WRITER_H
#define CADENZA_TAG_WRITER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Reads the tag properties of `path` (TagLib's PropertyMap; for MP4 also every freeform
/// `----:com.apple.iTunes:NAME` item as `NAME`) as "KEY=VALUE\n" lines into `out`.
/// Returns the length needed (without the terminating NUL; `out` is filled only when it is
/// smaller than `size`), or -1 with a message in `error` when the file cannot be read.
long cadenza_tags_read(const char *path, char *out, size_t size, char *error, size_t errorSize);

/// Sets properties of `path` from "KEY=VALUE\n" lines (an empty VALUE removes KEY) and saves the
/// file in place with TagLib. MP3: ID3v2.4 only (no ID3v1 is added). MP4: BPM goes to `tmpo`,
/// other keys TagLib does not map go to freeform `----:com.apple.iTunes:KEY` items.
/// Returns 0, or -1 with a message in `error`.
int cadenza_tags_write(const char *path, const char *assignments, char *error, size_t errorSize);

#ifdef __cplusplus
}
#endif

#endif
