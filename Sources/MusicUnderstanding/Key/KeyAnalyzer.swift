import Foundation

/// Key timeline from the shared chroma features.
///
/// The settings of all steps are ``Configuration`` (`KeyConfiguration.swift`).
///
/// 1. The chroma (an HPCP after Gómez 2006, see ``ChromaFeatures``) is compressed per vector and
///    summed per time step: one bar when the rhythm analysis found a bar grid, otherwise one
///    step of ``Configuration/stepDuration``.
/// 2. Each step scores the 24 keys by the mean Pearson correlation of an ensemble of key profiles
///    (default: Faraldo et al. 2016 "edma", its polyphonic form after Gómez 2006, and Aarden 2003;
///    see ``Configuration/additionalProfiles`` and ``KeyProfile``) with the chroma summed over a
///    context window centred on the step (the Krumhansl–Schmuckler method applied locally).
/// 3. An HMM over the 24 keys with a modulation penalty (Noland & Sandler 2006) is decoded with
///    Viterbi (``KeyTimeline``), so the timeline changes key only on sustained evidence. By
///    default it decodes the 12 key signatures first and the mode of each range second (Chai &
///    Vercoe 2005; ``Configuration/decodesKeySignatures``).
/// 4. The tonic of each range (`KeyTonic.swift`) is chosen in a second stage among the timeline's key, its
///    relative and the key a fifth below, from the chords the range dwells on: how much of
///    the range's time (one chord per beat) the candidate's tonic triad is the best-matching
///    triad (``Configuration/tonicChordWeight``), and for the last range of an input that
///    comes to an end, the closing chord (``Configuration/closingChordWeight``; see `tonicKey`).
///
/// **No invented key.** `ranges` is empty (and there is no confidence) when the input has less
/// than ``Configuration/minimumTonalDuration`` seconds of clearly tonal material — vectors with at
/// least ``Configuration/clearlyTonalShare`` of their spectral energy in sustained peaks (silence,
/// noise and clicks have none) —, when fewer than ``Configuration/minimumPitchClasses`` pitch
/// classes reach half the strength of the strongest in the whole input's chroma (a sine, a
/// single note with its harmonics, a bare fifth, pitched drums: one or two pitch classes do not
/// determine a key), or when that chroma correlates with no key better than
/// ``Configuration/minimumCorrelation`` (atonal material).
///
/// **Confidence.** ``KeyResult/confidence`` is the key strength of the whole input's chroma for
/// the global key (the longest range's), ``KeyResult/rangeConfidences`` that of each range's
/// own chroma for its key: the correlation used for the decision, clamped to 0 … 1.
///
/// **Coverage.** Otherwise the ranges are contiguous, the first starts at 0 and the last ends at
/// `features.duration`. Passages without tonal content (silence, a drum break, an intro of
/// noise) give no evidence and take the key of the music around them; a piece that has a key only
/// in part is covered entirely by that key.
public struct KeyAnalyzer: Sendable {
    /// The analysis parameters.
    public var configuration: Configuration

    /// Creates the analyzer.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Analyses the features of one input; `rhythm`, when it has a bar grid, makes the key
    /// timeline change on bar lines.
    public func analyze(_ features: SharedFeatures, rhythm: RhythmResult?) -> KeyResult {
        guard let chroma = features.chroma, chroma.count > 0, features.duration > 0 else {
            return KeyResult(ranges: [])
        }
        let duration = features.duration
        let n = chroma.count
        let vectorDuration = 1 / chroma.frameRate

        // 1. Compressed chroma of tonal vectors.
        var compressed = [Double](repeating: 0, count: 12 * n)
        var tonal = [Bool](repeating: false, count: n)
        var global = [Double](repeating: 0, count: 12)
        var clearlyTonalVectors = 0
        let exponent = configuration.chromaExponent
        for i in 0..<n {
            var energy: Float = 0
            for k in 0..<12 { energy += chroma.vectors[12 * i + k] }
            let spectral = i < chroma.spectralEnergy.count ? chroma.spectralEnergy[i] : 0
            let harmonic = i < chroma.harmonicEnergy.count ? chroma.harmonicEnergy[i] : 0
            guard energy > 0, spectral > 0, harmonic >= configuration.minimumTonalShare * spectral else { continue }
            tonal[i] = true
            if harmonic >= configuration.clearlyTonalShare * spectral { clearlyTonalVectors += 1 }
            var peak = 0.0
            for k in 0..<12 {
                let v = pow(Double(max(0, chroma.vectors[12 * i + k])), exponent)
                compressed[12 * i + k] = v
                peak = max(peak, v)
            }
            let scale = configuration.normalizeVectors && peak > 0 ? 1 / peak : 1
            for k in 0..<12 {
                compressed[12 * i + k] *= scale
                global[k] += compressed[12 * i + k]
            }
        }
        let table = ([configuration.profile] + configuration.additionalProfiles).map { $0.correlationTable() }
        guard Double(clearlyTonalVectors) * vectorDuration >= configuration.minimumTonalDuration,
            Self.salientPitchClasses(global) >= configuration.minimumPitchClasses,
            let best = Self.correlations(thresholded(global), table).max(),
            best >= configuration.minimumCorrelation
        else {
            return KeyResult(ranges: [])
        }

        // 2. Time steps: bars when available, else fixed steps.
        let boundaries = stepBoundaries(duration: duration, rhythm: rhythm)
        let steps = boundaries.count - 1
        var stepChroma = [Double](repeating: 0, count: 12 * steps)
        var stepTonal = [Double](repeating: 0, count: steps)
        var stepVectors = [Double](repeating: 0, count: steps)
        var s = 0
        for i in 0..<n {
            let t = (Double(i) + 0.5) * vectorDuration
            while s < steps - 1 && t >= boundaries[s + 1] { s += 1 }
            stepVectors[s] += 1
            if tonal[i] {
                stepTonal[s] += 1
                for k in 0..<12 { stepChroma[12 * s + k] += compressed[12 * i + k] }
            }
        }

        // 3. Scores: context correlation × step duration × tonal share of the step.
        var scores = [Double](repeating: 0, count: 24 * steps)
        var stepWeights = [Double](repeating: 0, count: steps)
        let halfContext = configuration.contextDuration / 2
        var lo = 0, hi = 0
        var context = [Double](repeating: 0, count: 12)
        for s in 0..<steps {
            let centre = (boundaries[s] + boundaries[s + 1]) / 2
            while hi < steps && (boundaries[hi] + boundaries[hi + 1]) / 2 <= centre + halfContext {
                for k in 0..<12 { context[k] += stepChroma[12 * hi + k] }
                hi += 1
            }
            while lo < hi && (boundaries[lo] + boundaries[lo + 1]) / 2 < centre - halfContext {
                for k in 0..<12 { context[k] -= stepChroma[12 * lo + k] }
                lo += 1
            }
            let share = stepVectors[s] > 0 ? stepTonal[s] / stepVectors[s] : 0
            let weight = (boundaries[s + 1] - boundaries[s]) * share
            guard weight > 0 else { continue }
            stepWeights[s] = weight
            let r = Self.correlations(thresholded(context), table)
            for key in 0..<24 { scores[24 * s + key] = weight * r[key] }
        }

        // 4. Viterbi and ranges.
        let timeline = KeyTimeline(scores: scores, steps: steps, modulationPenalty: configuration.modulationPenalty)
        var path = configuration.decodesKeySignatures ? timeline.decodeSignatures() : timeline.decode()

        // 5. Tonic of each range from the chords it dwells on (and, for the last, the closing chord).
        let chords = beatTriads(chroma, compressed: compressed, tonal: tonal, duration: duration, rhythm: rhythm)
        let closing = closingChroma(chroma, compressed: compressed, tonal: tonal)
        var first = 0
        while first < steps {
            var last = first
            while last + 1 < steps && path[last + 1] == path[first] { last += 1 }
            var shares = [Double](repeating: 0, count: 24)
            var total = 0.0
            for (time, triad, weight) in chords where time >= boundaries[first] && time < boundaries[last + 1] {
                shares[triad] += weight
                total += weight
            }
            if total > 0 { shares = shares.map { $0 / total } }
            let chosen = Self.tonicKey(
                path[first], scores: scores[(24 * first)..<(24 * (last + 1))],
                weights: stepWeights[first...last], triadShares: shares,
                closing: last == steps - 1 ? closing : nil,
                tonicChordWeight: configuration.tonicChordWeight,
                closingChordWeight: configuration.closingChordWeight)
            for t in first...last { path[t] = chosen }
            first = last + 1
        }
        var ranges: [MusicUnderstandingSession.RangedValue<KeyResult.KeySignature>] = []
        var rangeConfidences: [Double] = []
        var start = 0.0
        var rangeChroma = [Double](repeating: 0, count: 12)
        var longest = (duration: -1.0, key: 0)
        for s in 0..<steps {
            for k in 0..<12 { rangeChroma[k] += stepChroma[12 * s + k] }
            guard s == steps - 1 || path[s + 1] != path[s] else { continue }
            let end = s == steps - 1 ? duration : boundaries[s + 1]
            let key = path[s]
            let signature = KeySpelling.signature(pitchClass: key % 12, mode: key < 12 ? .major : .minor)
            ranges.append(.init(range: TimeRange(start: start, end: end), value: signature))
            rangeConfidences.append(strength(rangeChroma, key: key, table))
            if end - start > longest.duration { longest = (end - start, key) }
            rangeChroma = [Double](repeating: 0, count: 12)
            start = end
        }
        return KeyResult(
            ranges: ranges, confidence: strength(global, key: longest.key, table),
            rangeConfidences: rangeConfidences)
    }

    /// Key strength: the Pearson correlation of `chroma` with the profiles of `key`, clamped to
    /// 0 … 1 — the key strength of the Krumhansl–Schmuckler method (C. L. Krumhansl, *Cognitive
    /// Foundations of Musical Pitch*, 1990, ch. 4), called key clarity in O. Lartillot's MIRtoolbox.
    /// Unlike the key decision it reads the chroma without ``Configuration/pitchClassThreshold``,
    /// so that weak out-of-key pitch classes lower it smoothly.
    private func strength(_ chroma: [Double], key: Int, _ tables: [[[Double]]]) -> Double {
        let r = Self.correlations(chroma, tables)
        return key < r.count && r[key].isFinite ? min(1, max(0, r[key])) : 0
    }

    /// Step boundaries from 0 to `duration`: the bar grid when the rhythm has at least two bars,
    /// else fixed steps. Steps shorter than a quarter of the nominal step are merged.
    private func stepBoundaries(duration: Double, rhythm: RhythmResult?) -> [Double] {
        var inner: [Double] = []
        if let bars = rhythm?.gridBars, bars.count >= 2 {
            inner = bars.filter { $0 > 0 && $0 < duration && $0.isFinite }.sorted()
        }
        if inner.isEmpty {
            let step = max(0.1, configuration.stepDuration)
            var t = step
            while t < duration - step / 4 { inner.append(t); t += step }
        }
        var result: [Double] = [0]
        let minimum = max(0.1, configuration.stepDuration / 4)
        for t in inner where t - (result.last ?? 0) >= minimum && duration - t >= minimum {
            result.append(t)
        }
        result.append(duration)
        return result
    }

    /// Number of pitch classes at least half as strong as the strongest (0 for an empty chroma).
    static func salientPitchClasses(_ chroma: [Double]) -> Int {
        guard let hi = chroma.max(), hi > 0 else { return 0 }
        return chroma.filter { $0 >= 0.5 * hi }.count
    }

    /// `chroma` with pitch classes below ``Configuration/pitchClassThreshold`` × its maximum zeroed.
    private func thresholded(_ chroma: [Double]) -> [Double] {
        let limit = (chroma.max() ?? 0) * configuration.pitchClassThreshold
        return chroma.map { $0 >= limit ? $0 : 0 }
    }

    /// Mean over profile tables of the Pearson correlations of `chroma` with their 24 rows.
    static func correlations(_ chroma: [Double], _ tables: [[[Double]]]) -> [Double] {
        var sum = [Double](repeating: 0, count: 24)
        for table in tables {
            let r = correlations(chroma, table)
            for k in 0..<min(24, r.count) { sum[k] += r[k] }
        }
        return sum.map { $0 / Double(max(1, tables.count)) }
    }

    /// Pearson correlation of `chroma` with each of the 24 rows of a profile table.
    static func correlations(_ chroma: [Double], _ table: [[Double]]) -> [Double] {
        let mean = chroma.reduce(0, +) / 12
        var norm = 0.0
        for v in chroma { norm += (v - mean) * (v - mean) }
        norm = norm.squareRoot()
        guard norm > 0 else { return [Double](repeating: 0, count: table.count) }
        return table.map { row in
            var dot = 0.0
            for k in 0..<12 { dot += (chroma[k] - mean) * row[k] }
            return dot / norm
        }
    }
}
