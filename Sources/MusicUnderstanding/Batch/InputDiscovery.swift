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

    /// Folders never walked into (a batch's output folder, so its reports are not taken for inputs
    /// on the next run), compared by device and inode.
    public var excludedFolders: [String] = []

    /// Creates a discovery.
    public init(excludedFolders: [String] = []) {
        self.excludedFolders = excludedFolders
    }

    /// Expands `paths` into a sorted, de-duplicated list of inputs (one file given twice, even
    /// spelt differently as `a/x.mp3` and `./a/x.mp3` or reached through a symbolic link, is one
    /// input, under its first spelling: files are told apart by device and inode).
    /// A path that does not exist is kept, so that it gets its own error record. "-" means standard input.
    ///
    /// Folders are walked once each (by device and inode), so symbolic links that loop end the walk
    /// instead of repeating it. Nothing in a folder is dropped silently: a subfolder that cannot be
    /// listed, a dangling link or a name too long for the system becomes an input of its own, which
    /// gets an error record. Names that are not valid UTF-8 are kept with ``FilePath``'s escape.
    public func inputs(from paths: [String]) -> [String] {
        var result: [String] = []
        var seen = Set<String>()
        var visitedFolders = Set<FilePath.Status>()
        func key(_ path: String, _ status: FilePath.Status?) -> String {
            if path == "-" { return path }
            if let status { return "\(status.device):\(status.inode)" }
            return URL(fileURLWithPath: path).standardizedFileURL.path
        }
        for path in paths {
            let status = path == "-" ? nil : try? FilePath.status(path).get()
            if let status, status.isDirectory {
                for (file, fileStatus) in walk(path, visited: &visitedFolders) where seen.insert(key(file, fileStatus)).inserted {
                    result.append(file)
                }
            } else if seen.insert(key(path, status)).inserted {
                result.append(path)
            }
        }
        return result
    }

    private func walk(_ root: String, visited: inout Set<FilePath.Status>) -> [(String, FilePath.Status?)] {
        var files: [(String, FilePath.Status?)] = []
        let excluded = Set(excludedFolders.compactMap(Self.fileID))
        var stack = [root]
        func identity(_ s: FilePath.Status) -> FilePath.Status { FilePath.Status(device: s.device, inode: s.inode, type: 0, size: 0) }
        if case .success(let s) = FilePath.status(root) { visited.insert(identity(s)) }
        while let dir = stack.popLast() {
            if !excluded.isEmpty, let id = Self.fileID(dir), excluded.contains(id) { continue }
            guard case .success(let names) = FilePath.contentsOfDirectory(dir) else {
                files.append((dir, nil))  // a folder that cannot be listed gets its own error record
                continue
            }
            let nameSet = Set(names)
            for name in names.sorted() where !name.hasPrefix(".") {
                let full = dir.hasSuffix("/") ? dir + name : dir + "/" + name
                let status: FilePath.Status
                switch FilePath.status(full) {
                case .success(let s): status = s
                case .failure:
                    files.append((full, nil))  // dangling link, link loop, name too long: an error record
                    continue
                }
                if status.isDirectory {
                    if visited.insert(identity(status)).inserted { stack.append(full) }
                    continue
                }
                if isSidecar(name, among: nameSet) { continue }
                let ext = (name as NSString).pathExtension.lowercased()
                if Self.mediaExtensions.contains(ext) { files.append((full, status)); continue }
                if Self.ignoredExtensions.contains(ext) { continue }
                // A Cadenza report (a copy, or one whose input is gone) is never an input; any other
                // JSON is probed like other files and gets an error record.
                if ext == "json" && Self.isReport(full, status: status) { continue }
                files.append((full, status))  // probed when analysed: audio is analysed, anything else gets an error record
            }
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// Device and inode of `path`, following links.
    private static func fileID(_ path: String) -> [UInt64]? {
        var info = stat()
        return stat(path, &info) == 0 ? [UInt64(info.st_dev), UInt64(info.st_ino)] : nil
    }

    /// Whether the regular file at `path` is a Cadenza report or error record (a complete JSON
    /// object with a `source`, ``ReportHead``); files over 256 MB are not read.
    private static func isReport(_ path: String, status: FilePath.Status) -> Bool {
        guard status.isRegularFile, status.size <= 256 << 20 else { return false }
        return ReportHead.read(path: path) != nil
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
