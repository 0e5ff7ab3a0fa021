import Foundation

/// Label tracks for Audacity (File ▸ Import ▸ Labels) and Sonic Visualiser (File ▸ Import
/// Annotation Layer): one label per line, `start<TAB>end<TAB>text`, seconds with six decimals as
/// Audacity writes them; a point label has `end == start`.
public enum LabelTracks {
    /// The tracks a report gives.
    public enum Track: String, Sendable, CaseIterable {
        /// A point per beat, labelled with its position in the bar (`1` is the downbeat).
        case beats
        /// A point per bar line, labelled with the bar number from 1.
        case bars
        /// A range per section, labelled with its repetition label and function (`A verse`).
        case sections
        /// A range per key of the timeline (`A minor 8A`).
        case key
    }

    /// One label.
    public struct Label: Sendable, Hashable {
        /// Start, seconds.
        public var start: Double
        /// End, seconds (`start` for a point).
        public var end: Double
        /// The text.
        public var text: String
    }

    /// The labels of `track` in `result`, in time order (empty when the analysis is missing).
    public static func labels(_ track: Track, of result: SessionResult) -> [Label] {
        switch track {
        case .beats:
            guard let rhythm = result.rhythm else { return [] }
            let positions = beatPositions(rhythm)
            return zip(rhythm.beats, positions).map { Label(start: $0, end: $0, text: $1.map(String.init) ?? "") }
        case .bars:
            return (result.rhythm?.bars ?? []).enumerated().map { Label(start: $1, end: $1, text: "\($0 + 1)") }
        case .sections:
            guard let structure = result.structure else { return [] }
            return structure.sections.enumerated().map { i, range in
                let words = [structure.sectionLabels?[safe: i], structure.sectionFunctions?[safe: i]].compactMap { $0 }
                return Label(start: range.start, end: range.end, text: words.isEmpty ? "section \(i + 1)" : words.joined(separator: " "))
            }
        case .key:
            return (result.key?.ranges ?? []).map {
                Label(start: $0.range.start, end: $0.range.end, text: "\($0.value.name) \($0.value.camelot)")
            }
        }
    }

    /// The track as the text of a label file (empty for no labels).
    public static func text(_ track: Track, of result: SessionResult) -> String {
        text(labels(track, of: result))
    }

    /// Labels as the text of a label file. Tabs and line breaks inside a text become spaces.
    public static func text(_ labels: [Label]) -> String {
        var s = ""
        for label in labels {
            let text = label.text.map { $0 == "\t" || $0.isNewline ? " " : String($0) }.joined()
            s += String(format: "%.6f\t%.6f\t", label.start + 0, label.end + 0) + text + "\n"
        }
        return s
    }

    /// Every track merged into one, in time order, each text prefixed by its track (`beat 1`,
    /// `bar 3`, `section A verse`, `key A minor 8A`): what one label file on standard output holds.
    public static func combinedText(of result: SessionResult) -> String {
        let prefix: [Track: String] = [.beats: "beat", .bars: "bar", .sections: "section", .key: "key"]
        var all: [(Int, Label)] = []
        for (order, track) in Track.allCases.enumerated() {
            for label in labels(track, of: result) {
                all.append((order, Label(start: label.start, end: label.end, text: "\(prefix[track] ?? "") \(label.text)")))
            }
        }
        all.sort { ($0.1.start, $0.0) < ($1.1.start, $1.0) }
        return text(all.map(\.1))
    }

    /// The position of each beat in its bar, 1 at a bar line, counted from the bar line before
    /// it; beats before the first bar line (a pickup) count back from it using `beatsPerBar`.
    /// `nil` for every beat when there are no bars.
    public static func beatPositions(_ rhythm: RhythmResult) -> [Int?] {
        let beats = rhythm.beats, bars = rhythm.bars
        guard let firstBar = bars.first else { return beats.map { _ in nil } }
        let tolerance = 1e-3
        var positions: [Int?] = []
        positions.reserveCapacity(beats.count)
        var barIndex = 0
        var beatAtBar: Int?
        var firstBarBeat: Int?
        for (i, t) in beats.enumerated() where t >= firstBar - tolerance {
            firstBarBeat = i
            break
        }
        for (i, t) in beats.enumerated() {
            while barIndex < bars.count, bars[barIndex] <= t + tolerance {
                barIndex += 1
                beatAtBar = i
            }
            if let start = beatAtBar {
                positions.append(i - start + 1)
            } else if let meter = rhythm.beatsPerBar, meter > 0, let first = firstBarBeat {
                let back = first - i  // beats before the first bar line
                positions.append(((meter - back) % meter + meter) % meter + 1)
            } else {
                positions.append(nil)
            }
        }
        return positions
    }
}

fileprivate extension Array {
    /// The element at `index`, or `nil` outside the array.
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
