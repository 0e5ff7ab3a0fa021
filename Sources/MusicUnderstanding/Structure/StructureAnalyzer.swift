import Foundation

/// Sections, segments and phrases on the bar grid, with repetition labels and a guess of each
/// section's function.
///
/// The method, at bar resolution throughout (never a frame × frame matrix); each step lives in
/// its own file, the settings of all in ``Configuration`` (`StructureConfiguration.swift`):
/// 1. Bar-synchronous features (`BarFeatures.swift`; Bartsch & Wakefield 2005; Paulus, Müller &
///    Klapuri, "Audio-based music structure analysis", ISMIR 2010, sec. 3): mean semitone chroma
///    (harmony), mean MFCC 1-12 (timbre), mean log energy (loudness) and mean onset strength
///    (density) per bar.
/// 2. Boundary evidence (`SectionNovelty.swift`) at every bar line from two novelties, each
///    scaled to a maximum of 1 and mixed (``Configuration/repetitionWeight``): checkerboard
///    novelty (J. Foote, "Automatic audio segmentation using a measure of audio novelty", ICME
///    2000, sec. 2-3) on the bar self-distance, evaluated only inside the kernel's band (`2L × 2L`
///    bar pairs per bar line), and phrase-repetition novelty, the lag-4 row of the time-lag
///    structure features of Serrà, Müller, Grosche & Arcos (IEEE Trans. Multimedia 2014, sec. II),
///    which sees a new part even when it reuses the previous part's chords in another order.
/// 3. A hypermeter prior (parts span whole 4-bar phrases) down-weights bar lines off the
///    4-bar grid when the novelty peaks show a clear grid phase. Sections are the strongest
///    peaks (non-maximum suppression over `minimumSectionBars`); segments add Foote peaks at a
///    2-bar scale and cut segments longer than 8 bars; phrases cut segments into 4-bar groups.
///    Finer levels keep every coarser boundary, so the levels nest by construction.
///    Memory is `O(bars × features)`: no bar × bar matrix is ever stored, at any length.
/// 4. Labels from repetition (`SectionLabels.swift`): each section is compared bar by bar with
///    every earlier section (aligned at their starts and at their ends, the better of the two)
///    and joins the label of the closest one when the distance is small, as in the sequence
///    comparison of Paulus & Klapuri ("Music structure analysis using a probabilistic fitness
///    measure", IEEE TASLP 17(6), 2009, sec. III). Comparisons reach back at most
///    `labelWindowBars` bars.
/// 5. Functions by heuristics over repetition, position and energy (see ``functions(labels:energy:lengths:)``).
///
/// By default the section boundaries come from the structural features on beat-synchronous
/// frames (``StructuralFeatures``, ``Configuration/sectionMethod``), snapped to the bar lines of
/// step 1, with the bar novelty's clear peaks beside them; the silence before the music starts
/// and after it stops becomes a section of its own (``SilentEnds``).
public struct StructureAnalyzer: Sendable {
    /// The settings.
    public var configuration: Configuration

    /// Creates an analyzer.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    // MARK: - Entry points

    /// Analyses the shared features of one input on the bar grid of `rhythm`.
    ///
    /// Without a bar grid (fewer than 2 bar lines inside the input) the whole input is one
    /// section, one segment and one phrase; an input of zero duration gives no ranges. Silence
    /// before the music starts and after it stops is a section of its own (``SilentEnds``;
    /// ``Configuration/silenceDepth``).
    public func analyze(_ features: SharedFeatures, rhythm: RhythmResult?) -> StructureResult {
        let music = musicStructure(features, rhythm: rhythm)
        guard configuration.silenceDepth > 0, let onset = features.onset else { return music }
        let settings = MusicSpan.Settings(
            depth: configuration.silenceDepth, minimumSeconds: configuration.minimumSilenceSeconds,
            noiseFloorDepth: configuration.noiseFloorDepth)
        let span = MusicSpan(settings: settings).span(onset, duration: features.duration)
        return SilentEnds().applied(to: music, span: span)
    }

    /// The sections, segments and phrases of ``analyze(_:rhythm:)`` before the silent ends are
    /// added.
    func musicStructure(_ features: SharedFeatures, rhythm: RhythmResult?) -> StructureResult {
        let duration = features.duration
        var edges = Self.barEdges(bars: rhythm?.gridBars ?? [], duration: duration)
        var beats = rhythm?.gridBeats ?? []
        if edges.count < 3 {
            // No pulse: a time grid stands for bars and beats, so the music still gets its parts.
            let unit = configuration.pulselessUnitSeconds
            guard unit.isFinite, unit > 0, duration >= 3 * unit else { return Self.single(duration: duration) }
            edges = Self.grid(step: unit, duration: duration)
            beats = Self.grid(step: unit / 4, duration: duration)
        }
        guard edges.count >= 3 else { return Self.single(duration: duration) }
        beats = Self.subdivided(beats, longest: configuration.maximumUnitSeconds)
        var sectionTimes: [(time: Double, strength: Float)]?
        var steady = false
        if configuration.sectionMethod == .structuralFeatures {
            let beatEdges = Self.barEdges(bars: beats, duration: duration)
            if beatEdges.count >= 8, let frames = Self.boundaryFrames(features, edges: beatEdges) {
                let sf = StructuralFeatures()
                steady = !StructuralFeatures.varies(
                    frames.values, dimension: frames.dimension, count: frames.values.count / max(1, frames.dimension),
                    by: sf.settings.minimumDeviation)
                let found = sf.boundaries(frames.values, dimension: frames.dimension).map {
                    (time: beatEdges[$0.frame], strength: $0.strength)
                }
                sectionTimes = found
                // A boundary off the bar lines (a pickup, a bar grid in the wrong phase) becomes
                // an edge of its own, so sections start on the beat where the change is.
                edges = Self.merged(edges, with: found.map(\.time), tolerance: configuration.boundarySnapSeconds)
            }
        }
        let barFeatures = Self.barFeatures(
            features, edges: edges, timbreWeight: configuration.timbreWeight,
            dynamicsWeight: configuration.dynamicsWeight)
        return analyze(barFeatures, edges: edges, sectionTimes: sectionTimes, steady: steady)
    }

    /// Analyses bar features directly (`edges`: the `count + 1` bar edges in seconds, the first
    /// the start of the input, the last its end; interior edges are downbeats).
    ///
    /// Hostile input is safe: edges are sanitised (finite, increasing); when the features do
    /// not have one vector per bar the whole input is one section.
    public func analyze(_ features: BarFeatures, edges rawEdges: [Double]) -> StructureResult {
        analyze(features, edges: rawEdges, sectionTimes: nil)
    }

    /// As ``analyze(_:edges:)``; with `sectionTimes` (boundaries found elsewhere, with their
    /// strength), sections start at the bar lines nearest to them instead of at the bar novelty's peaks.
    func analyze(
        _ features: BarFeatures, edges rawEdges: [Double], sectionTimes: [(time: Double, strength: Float)]?, steady: Bool = false
    ) -> StructureResult {
        var edges: [Double] = []
        for t in rawEdges where t.isFinite && (edges.last.map { t > $0 } ?? true) { edges.append(t) }
        let duration = (edges.last ?? 0) - (edges.first ?? 0)
        let n = edges.count - 1
        guard n >= 2, features.count == n, features.dimension > 0 else {
            return Self.single(start: edges.first ?? 0, duration: max(0, duration))
        }
        let c = configuration
        let scale = Self.medianBandDistance(features, band: 2 * max(1, c.sectionKernelBars))
        var sectionStarts = [0]
        var segmentStarts = [0]
        if scale > 1e-6 {
            let foote = Self.novelty(features, halfWidth: max(1, c.sectionKernelBars)).map { max(0, $0 / scale) }
            let repetition = Self.lagNovelty(features, lag: max(1, c.phraseBars), scale: scale)
            // Each novelty is scaled by its maximum, but never by less than
            // `minimumNovelty`: a loop or a steady sound, whose novelty is noise, stays small.
            let footeTop = max(c.minimumNovelty, foote.max() ?? 0)
            let repetitionTop = max(c.minimumNovelty, repetition.max() ?? 0)
            let combined = zip(foote, repetition).map {
                (1 - c.repetitionWeight) * min(1, $0 / footeTop) + c.repetitionWeight * min(1, $1 / repetitionTop)
            }
            let sectionNovelty = Self.hypermetricWeighting(
                combined, period: max(1, c.phraseBars),
                evidence: c.hypermeterEvidence, offGridWeight: c.offGridWeight)
            let maximumCount = max(1, Int(duration / max(1, c.minimumMeanSectionSeconds)))
            if let sectionTimes, sectionTimes.isEmpty, steady {
                sectionStarts = [0]  // a steady sound: nothing changes anywhere
            } else if let sectionTimes {
                // Where the bar features do not change at all (a steady sound), the structural
                // features' scaled novelty is noise: those boundaries are dropped.
                let change = Self.novelty(features, halfWidth: max(1, c.sectionKernelBars))
                var starts = Self.snapped(sectionTimes, edges: edges, maximumCount: maximumCount).filter {
                    $0 == 0 || abs(change[$0]) >= c.minimumBoundaryChange
                }
                // Changes of texture so plain that the bar novelty is near its maximum are
                // boundaries too (repetition-based features blur parts that are short next to
                // their smoothing, and place a change within a bar or two).
                let strong = PeakPicking.strongestSeparated(
                    sectionNovelty, threshold: c.strongNovelty, minimumDistance: max(1, c.minimumSectionBars), required: [0],
                    prominence: c.sectionProminence, window: 2 * max(1, c.phraseBars), maximumCount: maximumCount)
                for p in strong where p > 0 {
                    // It replaces a structural-feature boundary that lies within a section's
                    // shortest length (it places the change on its bar more precisely).
                    starts.removeAll { $0 > 0 && abs($0 - p) < max(1, c.minimumSectionBars) }
                    starts.append(p)
                }
                sectionStarts = Array(Set(starts)).sorted()
                // Music whose bar novelty has clear, dominant peaks changes texture at its
                // boundaries (homogeneity-based segmentation is reliable there: Paulus, Müller &
                // Klapuri 2010, sec. 4): the bar novelty's own peaks are kept then.
                let barPeaks = PeakPicking.strongestSeparated(
                    sectionNovelty, threshold: c.sectionThreshold, minimumDistance: max(1, c.minimumSectionBars), required: [0],
                    prominence: c.sectionProminence, window: 2 * max(1, c.phraseBars), maximumCount: maximumCount)
                let peakMean = barPeaks.dropFirst().map { sectionNovelty[$0] }.reduce(0, +) / Double(max(1, barPeaks.count - 1))
                let mean = sectionNovelty.reduce(0, +) / Double(max(1, sectionNovelty.count))
                if barPeaks.count > 1, mean > 0, peakMean / mean >= c.homogeneityClarity { sectionStarts = barPeaks }
            } else {
                sectionStarts = PeakPicking.strongestSeparated(
                    sectionNovelty, threshold: c.sectionThreshold,
                    minimumDistance: max(1, c.minimumSectionBars), required: [0],
                    prominence: c.sectionProminence, window: 2 * max(1, c.phraseBars),
                    maximumCount: maximumCount)
            }
            let segmentNovelty = Self.novelty(features, halfWidth: max(1, c.segmentKernelBars)).map { $0 / scale }
            segmentStarts = PeakPicking.strongestSeparated(
                segmentNovelty, threshold: c.segmentThreshold,
                minimumDistance: max(1, c.minimumSegmentBars), required: sectionStarts)
        }
        segmentStarts = Self.split(
            segmentStarts, count: n, maximum: max(1, c.maximumSegmentBars),
            group: max(1, 2 * c.phraseBars))
        let phraseStarts = Self.split(
            segmentStarts, count: n, maximum: max(1, c.phraseBars + 1),
            group: max(1, c.phraseBars))

        let labelIndices =
            scale > 1e-6
            ? labels(features, starts: sectionStarts, count: n, scale: scale, threshold: c.labelThreshold)
            : [Int](repeating: 0, count: sectionStarts.count)
        let bounds = sectionStarts + [n]
        let energy = (0..<sectionStarts.count).map { s -> Double in
            let range = bounds[s]..<bounds[s + 1]
            let e = range.compactMap { $0 < features.energy.count ? Double(features.energy[$0]) : nil }
            return e.isEmpty ? 0 : e.reduce(0, +) / Double(e.count)
        }
        let lengths = (0..<sectionStarts.count).map { edges[bounds[$0 + 1]] - edges[bounds[$0]] }
        let functions = Self.functions(labels: labelIndices, energy: energy, lengths: lengths).map(\.rawValue)

        func ranges(_ starts: [Int]) -> [TimeRange] {
            let b = starts + [n]
            return (0..<starts.count).map { TimeRange(start: edges[b[$0]], end: edges[b[$0 + 1]]) }
        }
        return StructureResult(
            sections: ranges(sectionStarts), segments: ranges(segmentStarts),
            phrases: ranges(phraseStarts),
            sectionLabels: labelIndices.map(Self.letter),
            sectionFunctions: functions)
    }

    /// One section, segment and phrase over the whole input (none for an empty input).
    static func single(start: Double = 0, duration: Double) -> StructureResult {
        guard duration.isFinite, duration > 0 else {
            return StructureResult(sections: [], segments: [], phrases: [], sectionLabels: [], sectionFunctions: [])
        }
        let r = [TimeRange(start: start, duration: duration)]
        return StructureResult(sections: r, segments: r, phrases: r, sectionLabels: ["A"], sectionFunctions: [SectionFunction.other.rawValue])
    }
}
