// Thin C interface over TagLib's PropertyMap (and MP4 freeform atoms), for the Swift wrapper
// MusicUnderstanding/Output/TagWriter.swift. TagLib's own C API cannot set these properties.
#include "CTagWriter.h"

#include <taglib/fileref.h>
#include <taglib/tfile.h>
#include <taglib/tfilestream.h>
#include <taglib/tpropertymap.h>
#include <taglib/mp4file.h>
#include <taglib/mp4tag.h>
#include <taglib/mp4item.h>
#include <taglib/mpegfile.h>
#include <taglib/id3v2tag.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

void setError(char *error, size_t size, const std::string &message) {
    if (error == nullptr || size == 0) return;
    std::strncpy(error, message.c_str(), size - 1);
    error[size - 1] = '\0';
}

const char *const freeformPrefix = "----:com.apple.iTunes:";

TagLib::String utf8(const std::string &s) { return TagLib::String(s, TagLib::String::UTF8); }

std::vector<std::pair<std::string, std::string>> parse(const char *assignments) {
    std::vector<std::pair<std::string, std::string>> out;
    std::string all(assignments == nullptr ? "" : assignments);
    size_t start = 0;
    while (start < all.size()) {
        size_t end = all.find('\n', start);
        if (end == std::string::npos) end = all.size();
        std::string line = all.substr(start, end - start);
        size_t eq = line.find('=');
        if (eq != std::string::npos && eq > 0) out.emplace_back(line.substr(0, eq), line.substr(eq + 1));
        start = end + 1;
    }
    return out;
}

// Whether `ref` holds a file TagLib can tag; otherwise the reason goes to `error`.
bool taggable(const TagLib::FileRef &ref, char *error, size_t errorSize) {
    if (ref.isNull() || ref.file() == nullptr || !ref.file()->isValid()) {
        setError(error, errorSize, "not a file TagLib can tag (unknown extension or unreadable tags)");
        return false;
    }
    return true;
}

// Runs `body`, turning any exception TagLib throws into -1 and the reason in `error`:
// no exception crosses the C interface.
template <typename Body>
auto guarded(char *error, size_t errorSize, Body body) -> decltype(body()) {
    try {
        return body();
    } catch (const std::exception &e) {
        setError(error, errorSize, std::string("TagLib failed: ") + e.what());
        return -1;
    } catch (...) {
        setError(error, errorSize, "TagLib failed");
        return -1;
    }
}

}  // namespace

extern "C" long cadenza_tags_read(const char *path, char *out, size_t size, char *error, size_t errorSize) {
    return guarded(error, errorSize, [&]() -> long {
        TagLib::FileStream stream(path, true);
        if (!stream.isOpen()) { setError(error, errorSize, "cannot open the file"); return -1; }
        TagLib::FileRef ref(&stream, false);
        if (!taggable(ref, error, errorSize)) return -1;
        std::string text;
        const TagLib::PropertyMap map = ref.file()->properties();
        for (auto it = map.begin(); it != map.end(); ++it) {
            text += it->first.to8Bit(true) + "=" + it->second.toString(";").to8Bit(true) + "\n";
        }
        if (auto *mp4 = dynamic_cast<TagLib::MP4::File *>(ref.file())) {
            if (mp4->tag() != nullptr) {
                const TagLib::MP4::ItemMap &items = mp4->tag()->itemMap();
                for (auto it = items.begin(); it != items.end(); ++it) {
                    std::string key = it->first.to8Bit(true);
                    if (key.rfind(freeformPrefix, 0) == 0) {
                        text += "MP4:" + key.substr(std::strlen(freeformPrefix)) + "=" + it->second.toStringList().toString(";").to8Bit(true) + "\n";
                    }
                }
                if (mp4->tag()->contains("tmpo")) text += "MP4:tmpo=" + std::to_string(mp4->tag()->item("tmpo").toInt()) + "\n";
            }
        }
        if (text.size() < size && out != nullptr) std::memcpy(out, text.c_str(), text.size() + 1);
        return static_cast<long>(text.size());
    });
}

extern "C" int cadenza_tags_write(const char *path, const char *assignments, char *error, size_t errorSize) {
    return guarded(error, errorSize, [&]() -> int {
        TagLib::FileRef ref(path, false);
        if (!taggable(ref, error, errorSize)) return -1;
        if (ref.file()->readOnly()) { setError(error, errorSize, "the file is read-only"); return -1; }
        auto *mp4 = dynamic_cast<TagLib::MP4::File *>(ref.file());
        TagLib::PropertyMap map = ref.file()->properties();
        std::vector<std::pair<std::string, std::string>> pairs = parse(assignments);
        for (const auto &kv : pairs) {
            if (kv.second.empty()) map.erase(utf8(kv.first));
            else map.replace(utf8(kv.first), TagLib::StringList(utf8(kv.second)));
        }
        TagLib::PropertyMap rejected = ref.file()->setProperties(map);
        for (const auto &kv : pairs) {
            if (!rejected.contains(utf8(kv.first))) continue;
            if (mp4 == nullptr || mp4->tag() == nullptr) {
                setError(error, errorSize, "the format cannot store " + kv.first);
                return -1;
            }
            const TagLib::String key = utf8(std::string(freeformPrefix) + kv.first);
            if (kv.second.empty()) mp4->tag()->removeItem(key);
            else mp4->tag()->setItem(key, TagLib::MP4::Item(TagLib::StringList(utf8(kv.second))));
        }
        for (const auto &kv : pairs) {  // a key removed: also its freeform atom (MP4)
            if (mp4 != nullptr && mp4->tag() != nullptr && kv.second.empty()) mp4->tag()->removeItem(utf8(std::string(freeformPrefix) + kv.first));
        }
        bool saved;
        if (auto *mpeg = dynamic_cast<TagLib::MPEG::File *>(ref.file())) {
            saved = mpeg->save(TagLib::MPEG::File::ID3v2, TagLib::File::StripNone, TagLib::ID3v2::v4, TagLib::File::DoNotDuplicate);
        } else {
            saved = ref.file()->save();
        }
        if (!saved) { setError(error, errorSize, "TagLib could not save the file"); return -1; }
        return 0;
    });
}
