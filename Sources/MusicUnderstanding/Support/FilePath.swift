#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// File names as Linux has them (any bytes but `/` and NUL) carried losslessly in a Swift `String`,
/// plus the few POSIX calls the batch needs on such names. The thin wrapper over `stat`, `open`
/// and `readdir`: nothing else in the batch touches their raw pointers.
///
/// **The escape**: a byte of a path that is not part of valid UTF-8 becomes the character
/// U+10FE00 + byte (U+10FE80 … U+10FEFF, Unicode private use). Bytes that would spell one of
/// those characters themselves are escaped the same way, so the mapping is exact in both
/// directions: ``bytes(of:)`` gives back the original bytes of every string ``string(fromBytes:)``
/// produces. Reports carry the escaped form in `source.path`; to get the bytes back, replace each
/// character c in U+10FE80 … U+10FEFF by the byte c − 0x10FE00 and UTF-8-encode the rest.
public enum FilePath {
    /// First escape character (byte 0x80).
    static let escapeBase: UInt32 = 0x10FE00

    /// The string for the raw bytes of a path, valid UTF-8 kept as is, other bytes escaped.
    public static func string<Bytes: Collection>(fromBytes bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let b = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var i = 0
        while i < b.count {
            let (scalar, length) = decodeScalar(b, at: i)
            if let scalar, !isEscape(scalar.value) {
                scalars.append(scalar)
                i += length
            } else {
                let count = scalar == nil ? 1 : length  // an escape character on disk: each of its bytes escaped
                for byte in b[i..<(i + count)] {
                    if let escaped = Unicode.Scalar(escapeBase + UInt32(byte)) { scalars.append(escaped) }
                }
                i += count
            }
        }
        return String(scalars)
    }

    /// The raw bytes of `path` (the inverse of ``string(fromBytes:)``).
    public static func bytes(of path: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if isEscape(scalar.value) {
                out.append(UInt8(scalar.value - escapeBase))
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return out
    }

    /// `path` as a NUL-terminated C string of its raw bytes, for system calls.
    public static func cString(_ path: String) -> [CChar] {
        bytes(of: path).map { CChar(bitPattern: $0) } + [0]
    }

    /// Whether `path` holds escaped bytes (was not valid UTF-8 on disk).
    public static func hasEscapes(_ path: String) -> Bool {
        path.unicodeScalars.contains { isEscape($0.value) }
    }

    /// The command-line arguments, with names that are not valid UTF-8 escaped (Swift's
    /// `CommandLine.arguments` replaces such bytes by U+FFFD, losing the name).
    public static var commandLineArguments: [String] {
        (0..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return "" }
            let count = strlen(argument)
            return string(fromBytes: UnsafeBufferPointer(start: argument, count: count).map { UInt8(bitPattern: $0) })
        }
    }

    private static func isEscape(_ value: UInt32) -> Bool {
        value >= escapeBase + 0x80 && value <= escapeBase + 0xFF
    }

    /// The scalar starting at `i` and its length in bytes, or nil when the bytes there are not
    /// valid UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
    private static func decodeScalar(_ b: [UInt8], at i: Int) -> (Unicode.Scalar?, Int) {
        let lead = b[i]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let length: Int
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; value = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; value = UInt32(lead & 0x07)
        default: return (nil, 1)
        }
        guard i + length <= b.count else { return (nil, 1) }
        for k in 1..<length {
            let c = b[i + k]
            guard c & 0xC0 == 0x80 else { return (nil, 1) }
            value = value << 6 | UInt32(c & 0x3F)
        }
        let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return (nil, 1) }
        return (scalar, length)
    }

    // MARK: System calls on raw names

    /// What `stat` says of a path (following symbolic links).
    public struct Status: Sendable, Hashable {
        /// Device and inode: the file's identity.
        public var device: UInt64
        /// Inode number.
        public var inode: UInt64
        /// `st_mode & S_IFMT`.
        public var type: UInt32
        /// Size in bytes.
        public var size: Int64

        /// A directory.
        public var isDirectory: Bool { type == UInt32(S_IFDIR) }
        /// A regular file.
        public var isRegularFile: Bool { type == UInt32(S_IFREG) }
        /// A named pipe, socket or device: reading it may block or never end.
        public var isSpecial: Bool { !isDirectory && !isRegularFile }
        /// What kind of file system object this is, in words.
        public var kind: String {
            switch type {
            case UInt32(S_IFDIR): "a directory"
            case UInt32(S_IFREG): "a regular file"
            case UInt32(S_IFIFO): "a named pipe"
            case UInt32(S_IFSOCK): "a socket"
            case UInt32(S_IFCHR): "a character device"
            case UInt32(S_IFBLK): "a block device"
            default: "a special file"
            }
        }
    }

    /// `stat(2)` of `path`; the `errno` value when it fails.
    public static func status(_ path: String) -> Result<Status, SystemError> {
        var info = stat()
        guard stat(cString(path), &info) == 0 else { return .failure(SystemError(errno)) }
        return .success(
            Status(
                device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
                type: UInt32(info.st_mode) & UInt32(S_IFMT), size: Int64(info.st_size)))
    }

    /// Creates the folder `path` and its missing parents (`mkdir -p`, mode 0755 before the umask),
    /// byte for byte as the name is; the error of the first folder that cannot be made, or
    /// `ENOTDIR` when `path` exists and is not a directory.
    public static func createDirectories(_ path: String) -> SystemError? {
        let bytes = bytes(of: path)
        var prefix: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            prefix.append(byte)
            guard byte == UInt8(ascii: "/") || index == bytes.count - 1, prefix.contains(where: { $0 != UInt8(ascii: "/") }) else { continue }
            let name = prefix.map { CChar(bitPattern: $0) } + [0]
            if mkdir(name, 0o755) != 0, errno != EEXIST { return SystemError(errno) }
        }
        switch status(path) {
        case .success(let status): return status.isDirectory ? nil : SystemError(ENOTDIR)
        case .failure(let error): return error
        }
    }

    /// Whether the calling process may read `path` (and, for a directory, list it).
    public static func isReadable(_ path: String, directory: Bool = false) -> Bool {
        access(cString(path), directory ? R_OK | X_OK : R_OK) == 0
    }

    /// The names in a directory (raw bytes escaped, `.` and `..` left out), or why it cannot be read.
    public static func contentsOfDirectory(_ path: String) -> Result<[String], SystemError> {
        guard let dir = opendir(cString(path)) else { return .failure(SystemError(errno)) }
        defer { closedir(dir) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { return .failure(SystemError(errno)) }
                break
            }
            let raw = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if raw == [0x2E] || raw == [0x2E, 0x2E] { continue }
            names.append(string(fromBytes: raw))
        }
        return .success(names)
    }

    /// An `errno` value with its text.
    public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The `errno` value.
        public var code: Int32
        /// Creates the error for `code`.
        public init(_ code: Int32) { self.code = code }
        /// `strerror(code)`, e.g. "Permission denied".
        public var description: String { String(cString: strerror(code)) }
    }
}
