import Foundation

/// Sections, segments and phrases on the bar grid, with repetition labels and a guess of each
/// section's function.
///
/// The method, at bar resolution throughout (never a frame × frame matrix):
/// 1. Bar-synchronous features (Bartsch & Wakefield 2005; Paulus, Müller & Klapuri, "Audio-based
///    music structure analysis", ISMIR 2010, sec. 3): mean semitone chroma (harmony), mean MFCC
///    1-12 (timbre), mean log energy (loudness) and mean onset strength (density) per bar.
/// 2. Boundary evidence at every bar line from two novelties, each scaled to a maximum of 1 and
///    mixed (``Configuration/repetitionWeight``): checkerboard novelty (J. Foote, "Automatic
///    audio segmentation using a measure of audio novelty", ICME 2000, sec. 2-3) on the bar
///    self-distance, evaluated only inside the kernel's band (`2L × 2L` bar pairs per bar line),
///    and phrase-repetition novelty, the lag-4 row of the time-lag structure features of Serrà,
///    Müller, Grosche & Arcos (IEEE Trans. Multimedia 2014, sec. II), which sees a new part
///    even when it reuses the previous part's chords in another order.
/// 3. A hypermeter prior (parts span whole 4-bar phrases) down-weights bar lines off the
///    4-bar grid when the novelty peaks show a clear grid phase. Sections are the strongest
///    peaks (non-maximum suppression over `minimumSectionBars`); segments add Foote peaks at a
///    2-bar scale and cut segments longer than 8 bars; phrases cut segments into 4-bar groups.
///    Finer levels keep every coarser boundary, so the levels nest by construction.
///    Memory is `O(bars × features)`: no bar × bar matrix is ever stored, at any length.
/// 4. Labels from repetition: each section is compared bar by bar with every earlier section
///    (aligned at their starts and at their ends, the better of the two) and joins the label of
///    the closest one when the distance is small, as in the sequence comparison of
///    Paulus & Klapuri ("Music structure analysis using a probabilistic fitness measure",
///    IEEE TASLP 17(6), 2009, sec. III). Comparisons reach back at most `labelWindowBars` bars.
/// 5. Functions by heuristics over repetition, position and energy (see ``functions(labels:energy:lengths:)``).
public struct StructureAnalyzer: Sendable {
    /// Settings of the structure analysis.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Half-width `L` in bars of the checkerboard kernel for sections (the kernel spans
        /// `2L` bars); 4 bars = one typical phrase on each side of the candidate boundary.
        public var sectionKernelBars: Int = 4
        /// Half-width in bars of the kernel for segments.
        public var segmentKernelBars: Int = 2
        /// Shortest section in bars (non-maximum suppression distance of section peaks).
        public var minimumSectionBars: Int = 4
        /// Shortest segment in bars.
        public var minimumSegmentBars: Int = 2
        /// A section boundary needs a combined novelty (each part scaled to a maximum of 1) of
        /// at least this much.
        public var sectionThreshold: Double = 0.15
        /// A section boundary's novelty must also exceed the mean novelty of the bar lines
        /// within two phrases of it by this much (novelty scaled to a maximum of 1).
        public var sectionProminence: Double = 0.1
        /// Sections last this long on average at least: at most `duration / this` sections are
        /// kept (the strongest boundaries), so fast bar grids or busy music are not cut into
        /// phrase-sized sections.
        public var minimumMeanSectionSeconds: Double = 10
        /// A segment boundary needs a novelty of at least this many median bar distances.
        public var segmentThreshold: Double = 0.2
        /// Bars per phrase (phrases group this many bars from each segment's start).
        public var phraseBars: Int = 4
        /// Segments longer than this many bars are split into `phraseBars * 2`-bar groups.
        public var maximumSegmentBars: Int = 8
        /// Two sections share a label when their mean aligned bar distance is below this
        /// many median bar distances.
        public var labelThreshold: Double = 0.8
        /// How far back (bars) a section looks for earlier material with the same label;
        /// bounds the labelling cost for long mixes.
        public var labelWindowBars: Int = 512
        /// A hypermetric (phrase-grid) phase is trusted when its bar lines carry this many times
        /// the mean novelty of the other phases.
        public var hypermeterEvidence: Double = 1.3
        /// Factor on the novelty of bar lines off a trusted phrase grid.
        public var offGridWeight: Double = 0.3
        /// The smallest novelty maximum (in median bar distances) that counts as the strongest
        /// change of the piece; below it, novelties are scaled by this value instead.
        public var minimumNovelty: Double = 0.5
        /// Weight of the repetition novelty against the checkerboard (homogeneity) novelty in
        /// the section novelty (both scaled to a maximum of 1).
        public var repetitionWeight: Double = 0.7
        /// Weight of the timbre (MFCC) part of the bar distance against the chroma part.
        public var timbreWeight: Float = 1
        /// Weight of the energy and onset-density parts of the bar distance.
        public var dynamicsWeight: Float = 0.5
        /// Where section boundaries come from: structural features on beat-synchronous chroma
        /// and MFCCs (Serrà et al. 2014; the default), or the bar-level novelty above.
        public var sectionMethod: SectionMethod = .structuralFeatures
        /// Without a beat grid, the analysis works on a time grid: units of this many seconds
        /// stand for bars (and a quarter of it for beats).
        public var pulselessUnitSeconds: Double = 2
        /// A structural-feature boundary within this many seconds of a bar line starts its section
        /// on the bar line; farther away it starts the section where it is (on its beat).
        public var boundarySnapSeconds: Double = 2
        /// A structural-feature boundary needs at least this checkerboard novelty (bar distance
        /// units, unscaled) at its bar line: below it nothing changes there (a steady sound).
        public var minimumBoundaryChange: Double = 0.002
        /// A bar-novelty peak (steps 2-3, scaled to a maximum of 1) at least this high is a
        /// section boundary beside the structural-feature ones.
        public var strongNovelty: Double = 0.8
        /// When the bar novelty's peaks average at least this many times its mean, they are the
        /// sections (clear changes of texture), not the structural features' boundaries (default
        /// 2.5 since 0.8.11, 2.4 before).
        public var homogeneityClarity: Double = 2.5
        /// Longest unit of the structural features, seconds: beats longer than this are halved
        /// (up to three times) before the features are averaged over them, so that the features'
        /// settings, counted in units (MSAF's, set for beat-synchronous frames), span the same time
        /// whatever metrical level the beats are reported at (default 0.6 s, 100 BPM;
        /// docs/analyses/structure.md).
        public var maximumUnitSeconds: Double = 0.6
        /// Decibels below the loud frames' level (their 95th percentile) under which the start and
        /// the end of a recording are silence, a section of their own before the music starts and
        /// after it stops (default 50; 0 turns the silent sections off; docs/analyses/structure.md).
        public var silenceDepth: Double = 50
        /// Shortest silence at the start or the end that becomes a section, seconds (default 0.25).
        public var minimumSilenceSeconds: Double = 0.25
        /// Decibels below the loud frames' level under which a recording's first or last
        /// ``minimumSilenceSeconds`` are its noise floor (tape hiss, a room), and the music starts
        /// (or stops) where the level rises 6 dB above that floor (default 40; 0 turns it off;
        /// docs/analyses/structure.md, "Silence over a noise floor").
        public var noiseFloorDepth: Double = 40

        /// How section boundaries are found.
        public enum SectionMethod: String, Sendable, Hashable, Codable {
            /// Structural features (``StructuralFeatures``) on beats (slow ones halved to units of at
            /// most ``Configuration/maximumUnitSeconds``), snapped to bar lines.
            case structuralFeatures
            /// Checkerboard and phrase-repetition novelty on bars (steps 2-3 above).
            case barNovelty
        }

        /// The defaults.
        public init() {}
    }

    /// Bar-synchronous features: `count` bars, each with a vector of `dimension` values used in
    /// the bar distance, plus the raw energy per bar (for functions).
    public struct BarFeatures: Sendable {
        /// The vectors, `dimension` per bar, bar-major.
        public var values: [Float]
        /// Values per bar.
        public var dimension: Int
        /// Mean log energy per bar (any monotonic loudness measure).
        public var energy: [Float]

        /// Creates bar features; non-finite values are replaced by 0.
        public init(values: [Float], dimension: Int, energy: [Float]) {
            self.values = values.map { $0.isFinite ? $0 : 0 }
            self.dimension = max(0, dimension)
            self.energy = energy.map { $0.isFinite ? $0 : 0 }
        }

        /// Number of bars.
        public var count: Int { dimension > 0 ? values.count / dimension : 0 }
    }

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

    /// `edges` with each of `times` added that lies more than `tolerance` seconds from every
    /// edge (and inside the first and last edge), sorted.
    static func merged(_ edges: [Double], with times: [Double], tolerance: Double) -> [Double] {
        guard let first = edges.first, let last = edges.last else { return edges }
        var out = edges
        for t in times where t.isFinite && t > first + tolerance && t < last - tolerance {
            if !out.contains(where: { abs($0 - t) <= tolerance }) { out.append(t) }
        }
        return out.sorted()
    }

    /// `times` with the midpoint of each two added while their median interval is longer than
    /// `longest` seconds (at most three times).
    static func subdivided(_ times: [Double], longest: Double) -> [Double] {
        var times = times
        for _ in 0..<3 {
            guard times.count >= 2, let interval = Smoothing.median(zip(times.dropFirst(), times).map { $0 - $1 }),
                interval > longest
            else { break }
            times = Grid.withMidpoints(times) { ($0 + $1) / 2 }
        }
        return times
    }

    /// `0, step, 2·step, …, duration` (the last unit at least half a step long).
    static func grid(step: Double, duration: Double) -> [Double] {
        var edges = [0.0]
        var t = step
        while t < duration - 0.5 * step {
            edges.append(t)
            t += step
        }
        edges.append(duration)
        return edges
    }

    /// Beat-synchronous frames for the structural features: semitone chroma, each frame
    /// scaled to a maximum of 1, beside MFCC 1-12 scaled by their largest magnitude in the
    /// input; then each frame scaled to a maximum magnitude of 1 (MSAF's `bound_norm_feats`).
    static func boundaryFrames(_ f: SharedFeatures, edges: [Double]) -> (values: [Float], dimension: Int)? {
        let n = edges.count - 1
        var parts: [(values: [Float], dimension: Int)] = []
        if let chroma = f.chroma?.blockFeature {
            let a = chroma.aggregated(between: edges)
            if a.count == n, a.dimension == 12 { parts.append((a.values.map { $0.isFinite ? $0 : 0 }, 12)) }
        }
        if let mel = f.mel, mel.coefficientCount > 1 {
            let d = mel.coefficientCount
            let a = mel.mfccFeature.aggregated(between: edges)
            if a.count == n, a.dimension == d {
                var t = [Float](repeating: 0, count: n * (d - 1))
                for b in 0..<n { for k in 1..<d { t[b * (d - 1) + k - 1] = a.values[b * d + k].isFinite ? a.values[b * d + k] : 0 } }
                let top = t.map(abs).max() ?? 0
                parts.append((top > 0 ? t.map { $0 / top } : t, d - 1))
            }
        }
        let dimension = parts.reduce(0) { $0 + $1.dimension }
        guard dimension > 0 else { return nil }
        var values = [Float](repeating: 0, count: n * dimension)
        var offset = 0
        for part in parts {
            for b in 0..<n { for k in 0..<part.dimension { values[b * dimension + offset + k] = part.values[b * part.dimension + k] } }
            offset += part.dimension
        }
        for b in 0..<n {
            var top: Float = 0
            for k in 0..<dimension { top = max(top, abs(values[b * dimension + k])) }
            if top > 1e-9 { for k in 0..<dimension { values[b * dimension + k] /= top } }
        }
        return (values, dimension)
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

    // MARK: - Bar grid and features

    /// Section starts (bar indices, 0 first) at the bar lines nearest to `times`; when two
    /// land on one bar line, or more than `maximumCount` sections result, the stronger ones stay.
    static func snapped(_ times: [(time: Double, strength: Float)], edges: [Double], maximumCount: Int) -> [Int] {
        let n = edges.count - 1
        var best: [Int: Float] = [:]
        for (time, strength) in times where time.isFinite {
            // The nearest interior bar line (edges[1] ... edges[n - 1]).
            var lo = 1, hi = n - 1
            guard lo <= hi else { break }
            while lo < hi {
                let mid = (lo + hi) / 2
                if edges[mid] < time { lo = mid + 1 } else { hi = mid }
            }
            var index = lo
            if index > 1, abs(edges[index - 1] - time) < abs(edges[index] - time) { index -= 1 }
            best[index] = max(best[index] ?? 0, strength)
        }
        let kept = best.sorted { $0.value > $1.value }.prefix(max(0, maximumCount - 1)).map(\.key)
        return [0] + kept.sorted()
    }

    /// The unit edges: 0, the downbeats inside the input, the duration. A lead-in before the
    /// first downbeat or a tail after the last one shorter than half the median bar joins its
    /// neighbouring bar, so every unit is at least half a bar long.
    static func barEdges(bars: [Double], duration: Double) -> [Double] {
        guard duration.isFinite, duration > 0 else { return [] }
        var lines: [Double] = []
        for t in bars.sorted() where t.isFinite && t > 0 && t < duration && (lines.last.map { t > $0 } ?? true) {
            lines.append(t)
        }
        guard lines.count >= 2 else { return [0, duration] }
        let bar = Smoothing.median(zip(lines.dropFirst(), lines).map { $0 - $1 }) ?? 0
        if let first = lines.first, first < 0.5 * bar { lines.removeFirst() }
        if let last = lines.last, duration - last < 0.5 * bar { lines.removeLast() }
        return [0] + lines + [duration]
    }

    /// Bar-synchronous features from the shared features: L2-normalised chroma (the
    /// shared HPCP blocks), MFCC 1-12 and energy/onset density standardised over the input with a
    /// floor on the deviation (so a steady signal does not have its noise blown up).
    static func barFeatures(_ f: SharedFeatures, edges: [Double], timbreWeight: Float, dynamicsWeight: Float) -> BarFeatures {
        let n = edges.count - 1
        var columns: [[Float]] = []  // each: n × dim, bar-major
        var dims: [Int] = []
        var energy = [Float](repeating: 0, count: n)
        func aligned(_ s: SegmentFeature, _ d: Int) -> [Float]? {
            // One vector per bar only when aggregation kept every edge.
            s.count == n && s.dimension == d ? s.values.map { $0.isFinite ? $0 : 0 } : nil
        }
        if let onset = f.onset, onset.frameRate > 0 {
            let rate = onset.frameRate
            if let chroma = f.chroma?.blockFeature, var v = aligned(chroma.aggregated(between: edges), 12) {
                for b in 0..<n {
                    var norm: Float = 0
                    for k in 0..<12 { norm += v[b * 12 + k] * v[b * 12 + k] }
                    norm = norm.squareRoot()
                    for k in 0..<12 { v[b * 12 + k] = norm > 1e-9 ? v[b * 12 + k] / norm : 0 }
                }
                columns.append(v); dims.append(12)
            }
            let e = FrameFeature(values: onset.energy, dimension: 1, frameRate: rate, startTime: -0.5 / rate)
            if let v = aligned(e.aggregated(between: edges), 1) {
                energy = v
                columns.append(standardised(v, dimension: 1, floor: 0.05, weight: dynamicsWeight)); dims.append(1)
            }
            let s = FrameFeature(values: onset.strength, dimension: 1, frameRate: rate, startTime: -0.5 / rate)
            if let v = aligned(s.aggregated(between: edges), 1) {
                let scale = max(1e-6, v.max() ?? 0)
                columns.append(standardised(v.map { $0 / scale }, dimension: 1, floor: 0.05, weight: dynamicsWeight)); dims.append(1)
            }
        }
        if let mel = f.mel, mel.coefficientCount > 1 {
            let d = mel.coefficientCount
            if let v = aligned(mel.mfccFeature.aggregated(between: edges), d) {
                var t = [Float](repeating: 0, count: n * (d - 1))
                for b in 0..<n { for k in 1..<d { t[b * (d - 1) + k - 1] = v[b * d + k] } }
                columns.append(standardised(t, dimension: d - 1, floor: 0.1, weight: timbreWeight / Float(d - 1).squareRoot()))
                dims.append(d - 1)
            }
        }
        let dimension = dims.reduce(0, +)
        var values = [Float](repeating: 0, count: n * dimension)
        var offset = 0
        for (column, d) in zip(columns, dims) {
            for b in 0..<n { for k in 0..<d { values[b * dimension + offset + k] = column[b * d + k] } }
            offset += d
        }
        return BarFeatures(values: values, dimension: dimension, energy: energy)
    }

    /// Standardises each dimension over the bars (deviation floored at `floor`) and scales by
    /// `weight`.
    static func standardised(_ v: [Float], dimension d: Int, floor: Float, weight: Float) -> [Float] {
        guard d > 0 else { return v }
        let n = v.count / d
        guard n > 0 else { return v }
        var out = v
        for k in 0..<d {
            var mean: Float = 0
            for b in 0..<n { mean += v[b * d + k] }
            mean /= Float(n)
            var variance: Float = 0
            for b in 0..<n { variance += (v[b * d + k] - mean) * (v[b * d + k] - mean) }
            let deviation = max(floor, (variance / Float(n)).squareRoot())
            for b in 0..<n { out[b * d + k] = weight * (v[b * d + k] - mean) / deviation }
        }
        return out
    }

    // MARK: - Novelty and peaks

    /// Euclidean distance between the vectors of bars `i` and `j`.
    @inline(__always)
    static func distance(_ f: BarFeatures, _ i: Int, _ j: Int) -> Float {
        let d = f.dimension
        var s: Float = 0
        f.values.withUnsafeBufferPointer { v in
            for k in 0..<d { let x = v[i * d + k] - v[j * d + k]; s += x * x }
        }
        return s.squareRoot()
    }

    /// Median distance of bar pairs less than `band` bars apart (the scale of the novelty and
    /// label thresholds); `O(bars × band)`.
    static func medianBandDistance(_ f: BarFeatures, band: Int) -> Double {
        let n = f.count
        var all: [Float] = []
        all.reserveCapacity(n * band)
        for i in 0..<n { for j in (i + 1)..<min(n, i + 1 + band) { all.append(distance(f, i, j)) } }
        return Double(Smoothing.median(all) ?? 0)
    }

    /// Checkerboard novelty (Foote 2000, sec. 3) at every bar line `t` (1 ..< count; index 0 is
    /// 0): the Gaussian-tapered mean distance across the line (bars before vs after) minus the
    /// mean within each side, over the `2L × 2L` bars around it. Near the edges only the pairs
    /// that exist are used, each group normalised by its own weights.
    static func novelty(_ f: BarFeatures, halfWidth L: Int) -> [Double] {
        let n = f.count
        var out = [Double](repeating: 0, count: n)
        guard n >= 2 else { return out }
        let sigma = Double(L) / 2 + 0.5
        let taper = (0..<L).map { exp(-pow(Double($0) + 0.5, 2) / (2 * sigma * sigma)) }
        for t in 1..<n {
            var cross = 0.0, crossW = 0.0, within = 0.0, withinW = 0.0
            let lo = max(0, t - L), hi = min(n, t + L)
            for i in lo..<hi {
                let wi = taper[i < t ? t - 1 - i : i - t]
                for j in (i + 1)..<hi {
                    let w = wi * taper[j < t ? t - 1 - j : j - t]
                    let d = Double(distance(f, i, j))
                    if (i < t) != (j < t) { cross += w * d; crossW += w } else { within += w * d; withinW += w }
                }
            }
            let c = crossW > 0 ? cross / crossW : 0
            let w = withinW > 0 ? within / withinW : 0
            out[t] = c - w
        }
        return out
    }

    /// Phrase-repetition novelty, the lag-`p` row of the time-lag structure features of
    /// J. Serrà, M. Müller, P. Grosche & J. Ll. Arcos ("Unsupervised music structure annotation
    /// by time series structure features and segment similarity", IEEE Trans. Multimedia 16(5),
    /// 2014, sec. II-C/D) at the phrase lag `p` (4 bars): the mean distance between the `p` bars
    /// after bar line `t` and the `p` bars before it, compared in order (bar `t + k` with bar
    /// `t + k - p`). Inside a part whose progression repeats every `p` bars (or 1, 2, ...) it
    /// is small; it peaks where a new part begins, even when the new part reuses the same
    /// chords in another order (where a homogeneity kernel sees no change). Returned in units
    /// of the median bar distance; `O(bars × p)` time, no matrix.
    static func lagNovelty(_ f: BarFeatures, lag p: Int, scale: Double) -> [Double] {
        let n = f.count
        var out = [Double](repeating: 0, count: n)
        guard n >= 2, p >= 1, scale > 0 else { return out }
        for t in 1..<n {
            var s = 0.0, m = 0
            for k in 0..<p where t + k < n && t + k - p >= 0 {
                s += Double(distance(f, t + k, t + k - p)); m += 1
            }
            out[t] = m > 0 ? s / Double(m) / scale : 0
        }
        return out
    }

    /// Hypermeter prior: parts of popular music mostly span whole 4-bar hypermeasures
    /// (F. Lerdahl & R. Jackendoff, "A Generative Theory of Tonal Music", 1983, ch. 2 on
    /// metrical structure above the bar; used for segmentation e.g. by Maezawa, "Music boundary
    /// detection based on a hybrid deep model of novelty, homogeneity, repetition and duration",
    /// ICASSP 2019). The phase of the `period`-bar grid is the residue whose bar lines carry
    /// the most novelty-peak height (above the median); when it carries at least `evidence` times the mean of the
    /// other phases, novelty off that grid is multiplied by `offGridWeight`. Without clear
    /// evidence (no hypermeter, irregular phrases) the novelty is returned unchanged.
    static func hypermetricWeighting(_ novelty: [Double], period: Int, evidence: Double, offGridWeight: Double) -> [Double] {
        let n = novelty.count
        guard period > 1, n > 2 * period else { return novelty }
        // Peak heights above the median, summed per phase.
        let median = Smoothing.median(novelty.filter(\.isFinite)) ?? 0
        var means = [Double](repeating: 0, count: period)
        for t in 1..<(n - 1)
        where novelty[t].isFinite && novelty[t] > median
            && PeakPicking.isLocalMaximum(novelty, at: t)
        {
            means[t % period] += novelty[t] - median
        }
        guard let best = means.indices.max(by: { means[$0] < means[$1] }) else { return novelty }
        let others = means.indices.filter { $0 != best }.map { means[$0] }
        let rest = others.reduce(0, +) / Double(max(1, others.count))
        guard means[best] > evidence * rest else { return novelty }
        return novelty.indices.map { $0 % period == best ? novelty[$0] : novelty[$0] * offGridWeight }
    }

    /// Adds boundaries so no range is longer than `maximum` bars: a longer range is cut every
    /// `group` bars from its start; a remainder of one bar joins the range before it.
    static func split(_ starts: [Int], count n: Int, maximum: Int, group: Int) -> [Int] {
        var out: [Int] = []
        let bounds = starts + [n]
        for s in 0..<starts.count {
            let a = bounds[s], b = bounds[s + 1]
            out.append(a)
            guard b - a > maximum else { continue }
            var t = a + group
            while t < b {
                if b - t > 1 || group == 1 { out.append(t) }
                t += group
            }
        }
        return out
    }

    // MARK: - Labels and functions

    /// Repetition labels (0, 1, 2, ... in order of first appearance) for the sections starting
    /// at `starts` (see the type's step 4).
    func labels(_ f: BarFeatures, starts: [Int], count n: Int, scale: Double, threshold: Double) -> [Int] {
        let bounds = starts + [n]
        var labels: [Int] = []
        var next = 0
        for b in 0..<starts.count {
            let b0 = bounds[b], lb = bounds[b + 1] - b0
            var best = Double.infinity, bestLabel = -1
            for a in 0..<b where b0 - bounds[a] <= configuration.labelWindowBars {
                let a0 = bounds[a], la = bounds[a + 1] - a0
                let m = min(la, lb)
                guard m > 0 else { continue }
                var head = 0.0, tail = 0.0
                for k in 0..<m {
                    head += Double(Self.distance(f, a0 + k, b0 + k))
                    tail += Double(Self.distance(f, a0 + la - m + k, b0 + lb - m + k))
                }
                // Unequal lengths count against the match (an 8-bar part is not a 16-bar one).
                let ratio = Double(max(la, lb)) / Double(m)
                let d = min(head, tail) / Double(m) / scale * (1 + 0.25 * (ratio - 1))
                if d < best { best = d; bestLabel = labels[a] }
            }
            if best < threshold, bestLabel >= 0 {
                labels.append(bestLabel)
            } else {
                labels.append(next)
                next += 1
            }
        }
        return labels
    }

    /// Section functions from repetition, position and energy:
    /// the most repeated label (ties: higher mean energy) is the chorus; other repeated labels
    /// are verses; the first section is the intro when its label does not recur and either it
    /// is short or quieter than the mean, the last likewise the outro; a label
    /// appearing once elsewhere is a bridge in the second half of the piece and `other` before it.
    /// A single section is `other`.
    static func functions(labels: [Int], energy: [Double], lengths: [Double]) -> [SectionFunction] {
        let n = labels.count
        guard n > 1 else { return [SectionFunction](repeating: .other, count: n) }
        var counts: [Int: Int] = [:]
        var labelEnergy: [Int: Double] = [:]
        for (l, e) in zip(labels, energy) { counts[l, default: 0] += 1; labelEnergy[l, default: 0] += e }
        for (l, c) in counts { labelEnergy[l] = (labelEnergy[l] ?? 0) / Double(c) }
        let repeated = counts.filter { $0.value > 1 }.map(\.key)
        let chorus = repeated.max { a, b in
            let ca = counts[a] ?? 0, cb = counts[b] ?? 0
            return ca != cb ? ca < cb : (labelEnergy[a] ?? 0) < (labelEnergy[b] ?? 0)
        }
        let total = lengths.reduce(0, +)
        let meanLength = total / Double(n)
        let meanEnergy = energy.reduce(0, +) / Double(max(1, energy.count))
        var out = [SectionFunction](repeating: .other, count: n)
        var elapsed = 0.0
        for s in 0..<n {
            let l = labels[s]
            let once = (counts[l] ?? 0) == 1
            let quietOrShort = lengths[s] < 0.75 * meanLength || energy[s] < meanEnergy
            if l == chorus {
                out[s] = .chorus
            } else if !once {
                out[s] = .verse
            } else if s == 0 && quietOrShort {
                out[s] = .intro
            } else if s == n - 1 && quietOrShort {
                out[s] = .outro
            } else if elapsed + 0.5 * lengths[s] > 0.5 * total {
                out[s] = .bridge
            }
            elapsed += lengths[s]
        }
        return out
    }

    /// Label 0 → "A", 25 → "Z", 26 → "AA", ...
    static func letter(_ i: Int) -> String {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var i = max(0, i)
        var s = ""
        repeat {
            s = String(letters[i % 26]) + s
            i = i / 26 - 1
        } while i >= 0
        return s
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
