import Foundation

/// Re-indents compact JSON (as ``JSONLineEncoder`` writes it) for people: one member or element
/// per line, two spaces per level, `"key": value`, empty containers as `{}` and `[]`.
///
/// It only moves whitespace, so the document means exactly what the compact line means and every
/// output format still reads from the one encoder. Linear in the input, one pass over the bytes.
public enum PrettyJSON {
    /// `compact` re-indented, starting at `level` (its first line is not indented; nested lines are
    /// indented `level + 1` times). No trailing newline.
    public static func format(_ compact: Data, level: Int = 0) -> Data {
        let bytes = [UInt8](compact)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + bytes.count / 2)
        var depth = level
        var inString = false
        var escaped = false
        var i = 0
        func newline(_ depth: Int) {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(0x20, count: 2 * depth))
        }
        while i < bytes.count {
            let b = bytes[i]
            if inString {
                out.append(b)
                if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == 0x22 { inString = false }
                i += 1
                continue
            }
            switch b {
            case 0x22:
                inString = true
                out.append(b)
            case 0x7B, 0x5B:  // { [
                let close: UInt8 = b == 0x7B ? 0x7D : 0x5D
                if i + 1 < bytes.count, bytes[i + 1] == close {
                    out.append(b)
                    out.append(close)
                    i += 1
                } else {
                    out.append(b)
                    depth += 1
                    newline(depth)
                }
            case 0x7D, 0x5D:  // } ]
                depth -= 1
                newline(depth)
                out.append(b)
            case 0x2C:  // ,
                out.append(b)
                newline(depth)
            case 0x3A:  // :
                out.append(b)
                out.append(0x20)
            case 0x20, 0x0A, 0x0D, 0x09:
                break
            default:
                out.append(b)
            }
            i += 1
        }
        return Data(out)
    }
}
