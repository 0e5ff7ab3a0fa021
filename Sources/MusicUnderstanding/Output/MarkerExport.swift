import Foundation

/// A video frame rate as an exact rational frame duration, e.g. 29.97 fps is 1001/30000 s per frame
/// (SMPTE ST 12-1's NTSC rates are 30000/1001 and its multiples, not 29.97 exactly).
public struct FrameRate: Sendable, Hashable, CustomStringConvertible {
    /// Seconds per frame, numerator.
    public let frameDurationNumerator: Int
    /// Seconds per frame, denominator.
    public let frameDurationDenominator: Int

    /// The rate whose frame lasts `numerator / denominator` seconds (both positive, at most
    /// 1 000 000, and 1 to 1000 frames per second; nil otherwise).
    public init?(frameDurationNumerator numerator: Int, denominator: Int) {
        guard (1...1_000_000).contains(numerator), (1...1_000_000).contains(denominator),
            denominator >= numerator, denominator <= 1000 * numerator
        else { return nil }
        let g = Self.gcd(numerator, denominator)
        frameDurationNumerator = numerator / g
        frameDurationDenominator = denominator / g
    }

    /// Parses `25`, `29.97`, `23.976`, `59.94`, `30000/1001` (frames per second). The NTSC
    /// decimals (23.976, 29.97, 47.952, 59.94, 119.88) are the exact `N·1000/1001` rates; other
    /// decimals are taken to the millisecond frame rate (`12.5` is 1000/12500 s per frame).
    public init?(parsing text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        if let slash = t.firstIndex(of: "/") {
            guard let n = Int(t[..<slash]), let d = Int(t[t.index(after: slash)...]) else { return nil }
            self.init(frameDurationNumerator: d, denominator: n)  // n/d frames per second
            return
        }
        guard let fps = Double(t), fps.isFinite, fps >= 1, fps <= 1000 else { return nil }
        for nominal in [24, 30, 48, 60, 120] where abs(fps - Double(nominal) * 1000 / 1001) < 0.006 {
            self.init(frameDurationNumerator: 1001, denominator: nominal * 1000)
            return
        }
        let millis = Int((fps * 1000).rounded())
        self.init(frameDurationNumerator: 1000, denominator: millis)
    }

    /// 25 fps, the default.
    public static let pal = FrameRate(unchecked: 1, 25)
    private init(unchecked n: Int, _ d: Int) { frameDurationNumerator = n; frameDurationDenominator = d }

    /// Frames per second.
    public var framesPerSecond: Double { Double(frameDurationDenominator) / Double(frameDurationNumerator) }

    /// The whole frames per second a timecode counts (30 for 29.97, non-drop-frame).
    public var timecodeBase: Int { max(1, Int(framesPerSecond.rounded())) }

    /// The frame nearest to `seconds` (0 for negative or non-finite times; times past 10^7 s, about
    /// 116 days, the frame there).
    public func frame(at seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int((min(seconds, ReportTime.maximumSeconds) * framesPerSecond).rounded())
    }

    /// `frames` frames as an FCPXML rational time over the frame duration's denominator, as Final
    /// Cut Pro writes them: `0s`, `3s` for whole seconds, else `2002/30000s`, `76/25s`.
    public func rationalTime(frames: Int) -> String {
        guard frames > 0 else { return "0s" }
        let n = frames * frameDurationNumerator, d = frameDurationDenominator
        return n % d == 0 ? "\(n / d)s" : "\(n)/\(d)s"
    }

    /// `frames` frames as a non-drop-frame timecode `HH:MM:SS:FF` counted at ``timecodeBase``.
    public func timecode(frames: Int) -> String {
        let base = timecodeBase
        let f = frames % base, totalSeconds = frames / base
        return String(format: "%02d:%02d:%02d:%02d", totalSeconds / 3600, totalSeconds / 60 % 60, totalSeconds % 60, f)
    }

    /// `25`, `29.97`, `23.976`: the rate with up to three decimals.
    public var description: String {
        var s = String(format: "%.3f", framesPerSecond)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (abs(a), abs(b))
        while b != 0 { (a, b) = (b, a % b) }
        return max(a, 1)
    }
}

/// Which events of a report become markers in the video-editor formats.
public enum MarkerKind: String, Sendable, CaseIterable, Hashable {
    /// One marker per section start, named by its label and function (`A verse`).
    case sections
    /// One marker per bar line (`bar 5`).
    case bars
    /// One marker per beat (`beat 3`, its position in the bar).
    case beats
}

/// The settings of the formats that are not the report itself: frame rate and markers of the
/// video-editor formats, key notation of the DJ formats.
public struct ExportOptions: Sendable, Hashable {
    /// The frame rate markers are placed on (default 25 fps).
    public var frameRate: FrameRate
    /// The events that become markers (default sections and bars).
    public var markers: Set<MarkerKind>
    /// The key notation of the DJ formats' key field (rekordbox `Tonality`, Traktor `INFO KEY`).
    public var keyNotation: TagWriter.KeyNotation

    /// Options; every argument has the default named above.
    public init(
        frameRate: FrameRate = .pal, markers: Set<MarkerKind> = [.sections, .bars],
        keyNotation: TagWriter.KeyNotation = .standard
    ) {
        self.frameRate = frameRate
        self.markers = markers
        self.keyNotation = keyNotation
    }
}

/// Markers for video editors, made from a report's sections, bars and beats and snapped to frames:
/// Final Cut Pro XML, a CMX3600 EDL with DaVinci Resolve's marker comments, and Kdenlive guides.
/// Several markers on one frame are merged into one (texts joined by ` / `, the first kind's colour).
public enum MarkerExport {
    /// One marker: its frame, text and kind.
    public struct Marker: Sendable, Hashable {
        /// The frame it sits on.
        public var frame: Int
        /// Its name.
        public var text: String
        /// What made it (the earliest of ``MarkerKind``'s order when merged).
        public var kind: MarkerKind
    }

    /// The markers of `result` at `options`' frame rate, in time order, one per frame.
    public static func markers(of result: SessionResult, options: ExportOptions) -> [Marker] {
        var all: [(Int, Marker)] = []
        for (order, kind) in MarkerKind.allCases.enumerated() where options.markers.contains(kind) {
            let labels: [LabelTracks.Label]
            switch kind {
            case .sections: labels = LabelTracks.labels(.sections, of: result)
            case .bars: labels = LabelTracks.labels(.bars, of: result).map { LabelTracks.Label(start: $0.start, end: $0.end, text: "bar " + $0.text) }
            case .beats:
                labels = LabelTracks.labels(.beats, of: result).map {
                    LabelTracks.Label(start: $0.start, end: $0.end, text: $0.text.isEmpty ? "beat" : "beat " + $0.text)
                }
            }
            // A time past any audio's length (a corrupt report) has no place on the timeline.
            for label in labels where ReportTime.isWritable(label.start) {
                all.append((order, Marker(frame: options.frameRate.frame(at: label.start), text: label.text, kind: kind)))
            }
        }
        all.sort { ($0.1.frame, $0.0) < ($1.1.frame, $1.0) }
        var merged: [Marker] = []
        for (_, marker) in all {
            if let last = merged.last, last.frame == marker.frame {
                merged[merged.count - 1].text += " / " + marker.text
            } else {
                merged.append(marker)
            }
        }
        return merged
    }

    /// The name of a report's track: its file name without the extension (`stdin` for `-`).
    public static func trackName(_ report: Report) -> String {
        let path = report.source.path
        if path == "-" { return "stdin" }
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return name.isEmpty ? path : name
    }

    /// The length of the timeline in frames: the audio's duration, or past the last marker.
    static func durationFrames(_ report: Report, markers: [Marker], rate: FrameRate) -> Int {
        let audio = report.source.duration.map { rate.frame(at: $0) } ?? 0
        return max(audio, (markers.last?.frame ?? 0) + 1, 1)
    }

    // MARK: FCPXML

    /// The FCPXML version written: 1.9 (Final Cut Pro 10.5+, DaVinci Resolve 17+ import it).
    public static let fcpxmlVersion = "1.9"

    /// A Final Cut Pro XML document (Apple, "FCPXML Reference": `fcpxml` ▸ `resources` ▸ `format`;
    /// `library` ▸ `event` ▸ `project` ▸ `sequence` ▸ `spine` ▸ `gap` ▸ `marker`) holding one
    /// project per report: a gap as long as the audio on the spine, carrying the markers. Times
    /// are rational seconds on the frame grid (`1001/30000s`); each marker lasts one frame.
    public static func fcpxml(_ reports: [Report], options: ExportOptions) -> String {
        fcpxmlDocument(projects: reports.compactMap { fcpxmlProject($0, options: options) }, options: options)
    }

    /// The `project` element of one report (nil for an error record), for ``fcpxmlDocument(projects:options:)``.
    public static func fcpxmlProject(_ report: Report, options: ExportOptions) -> String? {
        guard report.error == nil, let result = report.result else { return nil }
        let rate = options.frameRate
        let markers = markers(of: result, options: options)
        let duration = rate.rationalTime(frames: durationFrames(report, markers: markers, rate: rate))
        let name = XMLText.escaped(trackName(report))
        var s = """
                  <project name="\(name)">
                    <sequence format="r1" duration="\(duration)" tcStart="0s" tcFormat="NDF" audioLayout="stereo" audioRate="48k">
                      <spine>
                        <gap name="\(name)" offset="0s" start="0s" duration="\(duration)">

            """
        for marker in markers {
            s +=
                "              <marker start=\"\(rate.rationalTime(frames: marker.frame))\" duration=\"\(rate.rationalTime(frames: 1))\" value=\"\(XMLText.escaped(marker.text))\"/>\n"
        }
        s += """
                        </gap>
                      </spine>
                    </sequence>
                  </project>

            """
        return s
    }

    /// The FCPXML document around `projects` (``fcpxmlProject(_:options:)``): one format resource
    /// at the frame rate (1920×1080), one event "Cadenza".
    public static func fcpxmlDocument(projects: [String], options: ExportOptions) -> String {
        var s = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE fcpxml>
            <fcpxml version="\(fcpxmlVersion)">
              <resources>
                <format id="r1" frameDuration="\(options.frameRate.rationalTime(frames: 1))" width="1920" height="1080"/>
              </resources>
              <library>
                <event name="Cadenza">

            """
        for project in projects { s += project }
        s += """
                </event>
              </library>
            </fcpxml>

            """
        return s
    }

    // MARK: EDL

    /// The timecode the EDL's record times start at: 01:00:00:00, DaVinci Resolve's default timeline start.
    public static let edlStartHours = 1

    /// DaVinci Resolve's marker colour of each kind, as its EDL comments name them.
    public static func resolveColor(_ kind: MarkerKind) -> String {
        switch kind {
        case .sections: "ResolveColorBlue"
        case .bars: "ResolveColorGreen"
        case .beats: "ResolveColorCyan"
        }
    }

    /// A CMX3600 EDL of markers as DaVinci Resolve exports and imports them (Timeline ▸ Import ▸
    /// Timeline Markers from EDL): a title and `FCM: NON-DROP FRAME`, then per marker a one-frame
    /// cut event `NNN  001      V     C        <src in> <src out> <rec in> <rec out>` and its comment
    /// line ` |C:ResolveColorBlue |M:<name> |D:1`. Record times start at 01:00:00:00
    /// (``edlStartHours``); event numbers have three digits, more past 999 (CMX3600 itself stops there).
    public static func edl(_ report: Report, options: ExportOptions) -> String {
        let rate = options.frameRate
        var s = "TITLE: \(plainLine(trackName(report)))\r\nFCM: NON-DROP FRAME\r\n\r\n"
        guard report.error == nil, let result = report.result else { return s }
        let offset = edlStartHours * 3600 * rate.timecodeBase
        for (i, marker) in markers(of: result, options: options).enumerated() {
            let number = String(format: "%03d", i + 1)
            let tcIn = rate.timecode(frames: offset + marker.frame), tcOut = rate.timecode(frames: offset + marker.frame + 1)
            s += "\(number)  001      V     C        \(tcIn) \(tcOut) \(tcIn) \(tcOut)  \r\n"
            s += " |C:\(resolveColor(marker.kind)) |M:\(plainLine(marker.text).replacingOccurrences(of: "|", with: "/")) |D:1\r\n\r\n"
        }
        return s
    }

    // MARK: Kdenlive

    /// Kdenlive's guide category of each kind (its default categories 0–8).
    public static func kdenliveCategory(_ kind: MarkerKind) -> Int {
        switch kind {
        case .sections: 0
        case .bars: 1
        case .beats: 2
        }
    }

    /// Kdenlive guides as its guide import reads them (Project ▸ Guides ▸ Import, the same JSON its
    /// export writes): an array of `{"comment": name, "pos": frame, "type": category}` objects,
    /// positions in frames of the project's rate (which must equal `options.frameRate`).
    public static func kdenliveGuides(_ report: Report, options: ExportOptions) -> String {
        guard report.error == nil, let result = report.result else { return "[]\n" }
        let items = markers(of: result, options: options).map { marker in
            "  {\"comment\": \(JSONText.quoted(marker.text)), \"pos\": \(marker.frame), \"type\": \(kdenliveCategory(marker.kind))}"
        }
        return items.isEmpty ? "[]\n" : "[\n" + items.joined(separator: ",\n") + "\n]\n"
    }

    /// `text` on one line of printable characters (control characters become spaces).
    static func plainLine(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
    }
}

/// Escaping for XML attribute values and text (XML 1.0 §2.4, §3.3.3).
enum XMLText {
    /// `text` with `&`, `<`, `>`, `"`, `'` as entities; tab, CR, LF as character references (so
    /// attribute normalisation keeps them); other characters XML 1.0 forbids dropped.
    static func escaped(_ text: String) -> String {
        var s = ""
        s.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": s += "&amp;"
            case "<": s += "&lt;"
            case ">": s += "&gt;"
            case "\"": s += "&quot;"
            case "'": s += "&apos;"
            case "\t": s += "&#9;"
            case "\n": s += "&#10;"
            case "\r": s += "&#13;"
            default:
                let v = scalar.value
                let allowed = v >= 0x20 && v != 0xFFFE && v != 0xFFFF
                if allowed { s.unicodeScalars.append(scalar) }
            }
        }
        return s
    }
}

/// JSON string literals (RFC 8259 §7).
enum JSONText {
    /// `text` as a quoted JSON string.
    static func quoted(_ text: String) -> String {
        var s = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": s += "\\\""
            case "\\": s += "\\\\"
            case "\n": s += "\\n"
            case "\r": s += "\\r"
            case "\t": s += "\\t"
            default:
                if scalar.value < 0x20 { s += String(format: "\\u%04x", scalar.value) } else { s.unicodeScalars.append(scalar) }
            }
        }
        return s + "\""
    }
}
