import Foundation

/// The silence before the music starts and after it stops, as sections of their own.
///
/// Structure annotations mark where a recording's music starts and stops: the Isophonics
/// annotations of the Beatles (Mauch, Cannam, Davies, Dixon, Harte, Kolozali, Tidhar & Sandler,
/// "OMRAS2 metadata project 2009", ISMIR late-breaking demo) and SALAMI (Smith, Burgoyne,
/// Fujinaga, De Roure & Downie, "Design and creation of a large-scale database of structural
/// annotations", ISMIR 2011, sec. 3) both open and close a recording with a "silence" segment,
/// and a video editor or a DJ wants the first and last sound as a marker too. The music's span is
/// read from the frames' power level (``MusicSpan``); a silent stretch at either end becomes a
/// section (and a segment and a phrase) of its own.
struct SilentEnds: Sendable {
    /// The few settings of the step.
    struct Settings: Sendable, Hashable {
        /// A boundary within this many seconds of where the music starts or stops moves there.
        var mergeSeconds: Double = 2
    }

    var settings = Settings()

    /// `result` with a section (segment and phrase) of silence before `span.start` and after
    /// `span.end`, when either is inside the result's extent: boundaries inside the silence, or
    /// within ``Settings/mergeSeconds`` of its edge, move onto the edge, so the levels still nest.
    /// The silent sections share one label (the same material: none) and the function `silence`.
    func applied(to result: StructureResult, span: (start: Double, end: Double)) -> StructureResult {
        guard let first = result.sections.first, let last = result.sections.last else { return result }
        let origin = first.start, finish = last.end
        let leading = span.start > origin && span.start < finish
        let trailing = span.end < finish && span.end > max(origin, leading ? span.start : origin)
        guard leading || trailing else { return result }
        let merge = max(0, settings.mergeSeconds)
        /// The level's boundaries (starts and the final end) with the music's edges added.
        func boundaries(_ ranges: [TimeRange]) -> [Double] {
            var out: [Double] = [origin]
            if leading { out.append(span.start) }
            // Kept boundaries lie strictly between the edges, so the list stays increasing.
            for r in ranges.dropFirst() {
                let t = r.start
                if leading, t <= span.start + merge { continue }
                if trailing, t >= span.end - merge { continue }
                out.append(t)
            }
            if trailing { out.append(span.end) }
            out.append(finish)
            return out
        }
        func ranges(_ b: [Double]) -> [TimeRange] {
            zip(b, b.dropFirst()).map { TimeRange(start: $0, end: $1) }
        }
        let sectionBounds = boundaries(result.sections)
        // The old section each new one continues (the one its midpoint falls in), for its label
        // and function; nil for the silent ones.
        let sources: [Int?] = zip(sectionBounds, sectionBounds.dropFirst()).enumerated().map { k, pair in
            if leading, k == 0 { return nil }
            if trailing, k == sectionBounds.count - 2 { return nil }
            let mid = (pair.0 + pair.1) / 2
            return result.sections.lastIndex { $0.start <= mid } ?? 0
        }
        let silentLabel = Self.unusedLabel(after: result.sectionLabels ?? [])
        let labels = result.sectionLabels.map { old in sources.map { $0.map { old.indices.contains($0) ? old[$0] : silentLabel } ?? silentLabel } }
        let functions = result.sectionFunctions.map { old in
            sources.map { $0.map { old.indices.contains($0) ? old[$0] : SectionFunction.other.rawValue } ?? SectionFunction.silence.rawValue }
        }
        return StructureResult(
            sections: ranges(sectionBounds), segments: ranges(boundaries(result.segments)),
            phrases: ranges(boundaries(result.phrases)), sectionLabels: labels, sectionFunctions: functions)
    }

    /// The first letter label (``StructureAnalyzer/letter(_:)``) that `labels` do not use.
    static func unusedLabel(after labels: [String]) -> String {
        let used = Set(labels)
        var i = 0
        while used.contains(StructureAnalyzer.letter(i)) { i += 1 }
        return StructureAnalyzer.letter(i)
    }
}
