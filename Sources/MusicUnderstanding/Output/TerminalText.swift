import Foundation

/// Text for a terminal.
public enum TerminalText {
    /// `text` with every control character (C0, DEL, C1) written as `\xNN`, so that a file name
    /// can never move the cursor, change colours or retitle the terminal (ECMA-48 control
    /// functions start with C0 or C1 characters).
    public static func escapingControlCharacters(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                out += String(format: "\\x%02X", scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
