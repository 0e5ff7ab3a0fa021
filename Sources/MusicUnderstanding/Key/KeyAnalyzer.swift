import Foundation

/// Key timeline from the shared chroma features.
///
/// 1. The chroma (an HPCP after Gómez 2006, see ``ChromaFeatures``) is compressed per vector and
///    summed per time step: one bar when the rhythm analysis found a bar grid, otherwise one
///    step of ``Configuration/stepDuration``.
/// 2. Each step scores the 24 keys by the Pearson correlation of a key profile (Krumhansl 1990,
///    Temperley 1999, Faraldo et al. 2016 "edma", Noland & Sandler 2007; see ``KeyProfile``) with
///    the chroma summed over a context window centred on the step (the Krumhansl–Schmuckler
///    method applied locally).
/// 3. An HMM over the 24 keys with a modulation penalty (Noland & Sandler 2006) is decoded with
///    Viterbi (``KeyTimeline``), so the timeline changes key only on sustained evidence.
///
/// **No invented key.** When the input has less than ``Configuration/minimumTonalDuration``
/// seconds of tonal material (silence, noise, drums alone), or the chroma of the whole input
/// correlates with no key profile better than ``Configuration/minimumCorrelation`` (atonal or
/// ambiguous material), `ranges` is empty.
///
/// **Coverage.** Otherwise the ranges are contiguous, the first starts at 0 and the last ends at
/// `features.duration`. Passages without tonal content (silence, a drum break, an intro of
/// noise) give no evidence and take the key of the music around them; a piece that has a key only
/// in part is covered entirely by that key.
public struct KeyAnalyzer: Sendable {
    /// Parameters of the key analysis, with their defaults.
    public struct Configuration: Sendable, Hashable {
        /// Key profile compared with the chroma. Default: the edma profile (Faraldo et al. 2016).
        /// Chosen by measurement against Krumhansl (1990), Temperley (1999) and Noland & Sandler
        /// (2007), each raw and made polyphonic after Gómez (2006, sec. 4.2): edma alone was best
        /// on generated pop songs, the polyphonic profiles and Noland's on Bach chorales, and the
        /// ensemble below was best on both together.
        public var profile: KeyProfile = .edma
        /// Further profiles whose correlations are averaged with those of `profile` (an
        /// ensemble). Default: edma made polyphonic with the I, IV and V chords (Gómez 2006).
        public var additionalProfiles: [KeyProfile] = [KeyProfile.edma.polyphonic(threeChords: true)]
        /// Length of a time step when no bar grid is available, seconds. Default 1.
        public var stepDuration: Double = 1
        /// Length of the context window whose chroma scores each step, seconds. Default 12
        /// (a few bars at most tempi).
        public var contextDuration: Double = 12
        /// Cost of a change of key, in correlation × seconds: a modulation must raise the new
        /// key's correlation above the old one's by, e.g., 0.25 for 24 s to be reported.
        /// Default 6.
        public var modulationPenalty: Double = 6
        /// Exponent applied to the chroma values of each vector before summing; below 1 it
        /// compresses, so that sustained soft chord tones count beside loud ones. Default 0.5.
        public var chromaExponent: Double = 0.5
        /// Normalise each tonal vector to unit maximum before summing, so every tonal moment
        /// counts alike regardless of loudness (as Essentia's key extractor averages frame-wise
        /// normalised HPCPs). Default false.
        public var normalizeVectors: Bool = false
        /// Before correlating, pitch classes of a summed chroma weaker than this share of its
        /// strongest one are set to zero, so that only the salient pitch classes shape the match
        /// (as Essentia's KeyExtractor does with its `pcpThreshold`). Default 0.2.
        public var pitchClassThreshold: Double = 0.2
        /// Vectors whose harmonic energy is below this share of their spectral energy count as
        /// not tonal (noise, drums). Default 0.1.
        public var minimumTonalShare: Float = 0.1
        /// Least tonal material, seconds, for a key to be reported. Default 2.
        public var minimumTonalDuration: Double = 2
        /// Least number of salient pitch classes (above 40 % of the way from the weakest to the
        /// strongest pitch class of the whole input's chroma) for a key to be reported: a key
        /// needs a scale, not one pitched drum or a drone. Default 3.
        public var minimumPitchClasses: Int = 3
        /// Least correlation of the whole input's chroma with the best key for a key to be
        /// reported. Default 0.4.
        public var minimumCorrelation: Double = 0.4

        /// The default configuration.
        public init() {}
    }

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
        var tonalVectors = 0
        let exponent = configuration.chromaExponent
        for i in 0..<n {
            var energy: Float = 0
            for k in 0..<12 { energy += chroma.vectors[12 * i + k] }
            let spectral = i < chroma.spectralEnergy.count ? chroma.spectralEnergy[i] : 0
            let harmonic = i < chroma.harmonicEnergy.count ? chroma.harmonicEnergy[i] : 0
            guard energy > 0, spectral > 0, harmonic >= configuration.minimumTonalShare * spectral else { continue }
            tonal[i] = true
            tonalVectors += 1
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
        guard Double(tonalVectors) * vectorDuration >= configuration.minimumTonalDuration,
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
            let r = Self.correlations(thresholded(context), table)
            for key in 0..<24 { scores[24 * s + key] = weight * r[key] }
        }

        // 4. Viterbi and ranges.
        let path = KeyTimeline(scores: scores, steps: steps, modulationPenalty: configuration.modulationPenalty).decode()
        var ranges: [MusicUnderstandingSession.RangedValue<KeyResult.KeySignature>] = []
        var start = 0.0
        for s in 0..<steps where s == steps - 1 || path[s + 1] != path[s] {
            let end = s == steps - 1 ? duration : boundaries[s + 1]
            let key = path[s]
            let signature = KeySpelling.signature(pitchClass: key % 12, mode: key < 12 ? .major : .minor)
            ranges.append(.init(range: TimeRange(start: start, end: end), value: signature))
            start = end
        }
        return KeyResult(ranges: ranges)
    }

    /// Step boundaries from 0 to `duration`: the bar grid when the rhythm has at least two bars,
    /// else fixed steps. Steps shorter than a quarter of the nominal step are merged.
    private func stepBoundaries(duration: Double, rhythm: RhythmResult?) -> [Double] {
        var inner: [Double] = []
        if let bars = rhythm?.bars, bars.count >= 2 {
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

    /// Number of pitch classes at or above 40 % of the way from the weakest to the strongest.
    static func salientPitchClasses(_ chroma: [Double]) -> Int {
        guard let lo = chroma.min(), let hi = chroma.max(), hi > lo else { return 0 }
        let mid = lo + 0.4 * (hi - lo)
        return chroma.filter { $0 >= mid }.count
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
