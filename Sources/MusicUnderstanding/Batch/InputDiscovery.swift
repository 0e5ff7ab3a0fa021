import Foundation

/// Finds the inputs of a batch: files as given, folders walked recursively.
///
/// In a folder, a file is an input when its extension is that of an audio or video container,
/// or when FFmpeg recognises it as audio by probing its content (so a FLAC named `.dat` is found).
/// Skipped without a record: hidden files, sidecars (a file named like another file plus a
/// suffix, e.g. `song.mp3.json` or `song.flac.cue`) and well-known non-audio types (images,
/// playlists, cue sheets, text, JSON). Every other file that turns out not to be audio gets an error
/// record, so nothing is silently ignored. Files named on the command line are always inputs.
public struct InputDiscovery: Sendable {
    /// Extensions of audio and video containers: always inputs (an undecodable one gets an error record).
    public static let mediaExtensions: Set<String> = [
        "wav", "wave", "aif", "aiff", "aifc", "flac", "mp3", "mp2", "ogg", "oga", "opus", "m4a", "m4b", "mp4",
        "aac", "alac", "wma", "wmv", "asf", "caf", "wv", "ape", "mka", "mkv", "webm", "mov", "avi", "ac3", "eac3",
        "dts", "amr", "au", "snd", "tta", "mpc", "w64", "rf64", "dsf", "spx",
    ]
    /// Extensions skipped in folders without probing.
    public static let ignoredExtensions: Set<String> = [
        "jpg", "jpeg", "png", "gif", "bmp", "webp", "tif", "tiff", "heic", "ico", "svg",
        "txt", "nfo", "cue", "log", "m3u", "m3u8", "pls", "xspf", "md", "pdf", "db", "ini", "sfv", "md5",
        "sha1", "sha256", "accurip", "lrc", "xml", "html", "htm", "url", "ds_store", "tmp", "part",
        "mid", "midi", "kar",
    ]

    /// Creates a discovery.
    public init() {}

    /// Expands `paths` into a sorted, de-duplicated list of inputs (one file given twice, even
    /// spelt differently as `a/x.mp3` and `./a/x.mp3`, is one input, under its first spelling).
    /// A path that does not exist is kept, so that it gets its own error record. "-" means standard input.
    public func inputs(from paths: [String]) -> [String] {
        var result: [String] = []
        var seen = Set<String>()
        let fm = FileManager.default
        func key(_ path: String) -> String { path == "-" ? path : URL(fileURLWithPath: path).standardizedFileURL.path }
        for path in paths {
            var isDirectory: ObjCBool = false
            if path != "-", fm.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                for file in walk(path) where seen.insert(key(file)).inserted { result.append(file) }
            } else if seen.insert(key(path)).inserted {
                result.append(path)
            }
        }
        return result
    }

    private func walk(_ root: String) -> [String] {
        let fm = FileManager.default
        var files: [String] = []
        var stack = [root]
        while let dir = stack.popLast() {
            guard let names = try? fm.contentsOfDirectory(atPath: dir) else { continue }
            let nameSet = Set(names)
            for name in names.sorted() where !name.hasPrefix(".") {
                let full = dir.hasSuffix("/") ? dir + name : dir + "/" + name
                var isDirectory: ObjCBool = false
                guard fm.fileExists(atPath: full, isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue { stack.append(full); continue }
                if isSidecar(name, among: nameSet) { continue }
                let ext = (name as NSString).pathExtension.lowercased()
                if Self.mediaExtensions.contains(ext) { files.append(full); continue }
                if Self.ignoredExtensions.contains(ext) { continue }
                files.append(full)  // probed when analysed: audio is analysed, anything else gets an error record
            }
        }
        return files.sorted()
    }

    /// `a.mp3.json` beside `a.mp3` is a sidecar of it.
    private func isSidecar(_ name: String, among names: Set<String>) -> Bool {
        var base = name
        while case let stripped = (base as NSString).deletingPathExtension, stripped != base, !stripped.isEmpty {
            if names.contains(stripped) && Self.mediaExtensions.contains((stripped as NSString).pathExtension.lowercased()) {
                return true
            }
            base = stripped
        }
        return false
    }
}
