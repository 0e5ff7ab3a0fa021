import Foundation

/// Key timeline from the shared chroma features.
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
/// 4. The tonic of each range is chosen in a second stage among the timeline's key, its
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
    /// Parameters of the key analysis, with their defaults.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Key profile compared with the chroma. Default: the edma profile (Faraldo et al. 2016).
        public var profile: KeyProfile = .edma
        /// Further profiles whose correlations are averaged, with equal weights, with those of
        /// `profile` (an ensemble: the average of Pearson correlations with unit-norm profiles is
        /// the correlation with their mean). Default: edma made polyphonic with the I, IV and V
        /// chords (Gómez 2006, sec. 4.2) and Aarden's Essen-folksong profile (``KeyProfile/aarden``):
        /// an audio profile of produced music, its chord-and-harmonics form, and the symbolic
        /// profile with the clearest major/minor contrast.
        ///
        /// Chosen by cross-validation on the halves of the evaluation corpus (tonal pieces and
        /// songs): every ensemble of one to three of eleven profiles (Krumhansl 1990, Temperley
        /// 1999, edma, Noland 2007, Aarden 2003, Bellman 2005, Temperley–Kostka–Payne 2007, Sapp's
        /// simple weights, and the polyphonic forms of edma, Krumhansl and Temperley) was scored
        /// on half A; of those tied best, the one nearest the previous default (edma + its
        /// polyphonic form) was taken and confirmed on half B (tonal MIREX 0.962 → 0.985, songs
        /// 0.953 → 1.000; half A tonal 0.979 → 1.000, songs 1.000). Aarden's weight is not
        /// tuned: results are the same from 1 to 1.5 times the others', worse at 0.5 or 3.
        public var additionalProfiles: [KeyProfile] = [KeyProfile.edma.polyphonic(threeChords: true), .aarden]
        /// Length of a time step when no bar grid is available, seconds. Default 1.
        public var stepDuration: Double = 1
        /// Length of the context window whose chroma scores each step, seconds. Default 12
        /// (a few bars at most tempi).
        public var contextDuration: Double = 12
        /// Cost of a change of key, in correlation × seconds: a modulation must raise the new
        /// key's (with ``decodesKeySignatures``, the new key signature's) correlation above the
        /// old one's by, e.g., 0.25 for 12 s to be reported. Default 3.
        ///
        /// Chosen with the signature timeline among 2, 3, 4, 6, 12 and 24: on half A of the
        /// evaluation corpus all tie (tonal and songs 1.000); 2 loses a tonal piece on half B;
        /// 3 is the largest that still finds a 20 s modulation to the mediant and back, while
        /// 8 s passages leaning to the dominant, the subdominant or the relative stay in the key
        /// (KeyTests). The 24-key timeline needs 6: at 3 it splits songs at their relative
        /// (songs 0.860 / 0.887).
        public var modulationPenalty: Double = 3
        /// Decode the timeline over the 12 key signatures (a major key and its relative minor
        /// as one), then choose the mode of each range from its summed correlations, instead of
        /// over the 24 keys at once (see `KeyTimeline.decodeSignatures()`, after W. Chai and
        /// B. Vercoe, "Detection of key change in classical piano music", ISMIR 2005). Default
        /// true: a song whose local evidence moves between its tonic and its relative (verse on
        /// i, chorus on III) no longer reads as a modulation, nor drifts to the subdominant key
        /// that neither of the two outscores alone. Measured on the evaluation corpus (MIREX
        /// weighted, half A / half B, with the default penalties 6 → 3): songs 1.000 / 0.933 →
        /// 1.000 / 1.000, tonal unchanged (1.000 / 0.985), formats unchanged (1.000), realmusic
        /// agreement with Essentia 0.833 / 0.500 → 1.000 / 0.550. Set false (with a penalty of
        /// 6) for the previous 24-key timeline, which also reports changes between relative keys.
        public var decodesKeySignatures: Bool = true
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
        /// Weight, beside the mean profile correlation, of the share of a range's time whose
        /// best-matching triad is a candidate's tonic triad, when the tonic stage chooses between
        /// the timeline's key, its relative and the key a fifth below (see `tonicKey`); 0
        /// leaves the choice to the correlation and the closing chord. Default 1. The evidence
        /// for the value is in docs/analyses/key.md.
        public var tonicChordWeight: Double = 1
        /// Weight, in the same stage, of the Pearson correlation of the closing chord (see
        /// ``finalChordDuration``) with a candidate's tonic triad, for the last range of an input
        /// that ends in a release. Default 0.25: popular songs often close on an added-sixth
        /// chord (I6 reads as the relative minor's triad) or fade out, so the closing chord is
        /// one cue among others, not the decision (docs/analyses/key.md).
        public var closingChordWeight: Double = 0.25
        /// Seconds of tonal material at the end of the input whose chroma is the closing chord
        /// (see ``closingChordWeight``); 0 disables that cue. Default 3: a held final chord with
        /// its release, one or two bars at most tempi. The cue counts only when the input ends in
        /// a release (see ``endingLevel``). Known limitation: a fade-out also ends in silence,
        /// and its closing passage is whatever the fade stops on.
        public var finalChordDuration: Double = 3
        /// The closing chord counts only when the input comes to an end: the spectral energy of
        /// its last half second is below this share of the median energy of its tonal vectors.
        /// Default 0.01 (-20 dB): a final chord that has been released, not music cut off (an
        /// excerpt, a loop), whose last chord says nothing about the tonic.
        public var endingLevel: Float = 0.01
        /// Vectors whose harmonic energy (sustained spectral peaks, see ``ChromaFeatures``) is
        /// below this share of their spectral energy are not tonal and add nothing to the key's
        /// chroma. Default 0.1 (drum-heavy passages of songs still count; measured on the
        /// evaluation corpus, 0.5 lost a song key).
        public var minimumTonalShare: Float = 0.1
        /// Vectors with at least this share of their spectral energy in sustained peaks are
        /// clearly tonal (``minimumTonalDuration``). Default 0.5: white, pink and brown noise
        /// measure 0.05-0.08 per vector (at most 0.36, brown noise over 5 minutes), clicks 0,
        /// tonal music a median of 0.8-0.9, songs with drums 65-100 % of their vectors above it.
        public var clearlyTonalShare: Float = 0.5
        /// Least clearly tonal material, seconds, for a key to be reported. Default 2.
        public var minimumTonalDuration: Double = 2
        /// Least number of pitch classes that reach half the strength of the strongest in the
        /// whole input's (compressed) chroma for a key to be reported. Default 3, a triad: a
        /// sine or a single note with its harmonics gives one or two, a bare fifth two, pitched
        /// drums one or two; every piece of the evaluation corpus at least five.
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

    /// Summed compressed chroma of the last ``Configuration/finalChordDuration`` seconds of tonal
    /// vectors, or nil when the stage is disabled, there are none, or the input does not end in a
    /// release (its last half second is not below ``Configuration/endingLevel`` × the median
    /// spectral energy of the tonal vectors).
    private func closingChroma(_ chroma: ChromaFeatures, compressed: [Double], tonal: [Bool]) -> [Double]? {
        let n = chroma.count
        guard configuration.finalChordDuration > 0, chroma.spectralEnergy.count == n, n > 0 else { return nil }
        var levels: [Float] = []
        for i in 0..<n where tonal[i] { levels.append(chroma.spectralEnergy[i]) }
        guard let median = Smoothing.median(levels) else { return nil }
        let tailCount = max(1, min(n, Int((0.5 * chroma.frameRate).rounded())))
        var tail: Float = 0
        for i in (n - tailCount)..<n { tail += chroma.spectralEnergy[i] }
        guard tail / Float(tailCount) < configuration.endingLevel * median else { return nil }
        let wanted = max(1, Int((configuration.finalChordDuration * chroma.frameRate).rounded()))
        var closing = [Double](repeating: 0, count: 12)
        var taken = 0
        var i = n - 1
        while i >= 0 && taken < wanted {
            if tonal[i] {
                for k in 0..<12 { closing[k] += compressed[12 * i + k] }
                taken += 1
            }
            i -= 1
        }
        return taken > 0 ? closing : nil
    }

    /// One chord per beat (per ``Configuration/stepDuration`` without beats): the centre time of
    /// the beat, the best-matching of the 24 major and minor triads (highest Pearson correlation
    /// of the beat's summed compressed chroma with the triad's three pitch classes) and the
    /// beat's duration × its share of tonal vectors; beats without tonal vectors are left out.
    private func beatTriads(
        _ chroma: ChromaFeatures, compressed: [Double], tonal: [Bool], duration: Double,
        rhythm: RhythmResult?
    ) -> [(time: Double, triad: Int, weight: Double)] {
        var inner = (rhythm?.gridBeats ?? []).filter { $0 > 0 && $0 < duration && $0.isFinite }.sorted()
        if inner.count < 2 {
            let step = max(0.1, configuration.stepDuration)
            inner = Array(stride(from: step, to: duration, by: step))
        }
        let boundaries = [0] + inner + [duration]
        let segments = boundaries.count - 1
        var sums = [Double](repeating: 0, count: 12 * segments)
        var vectors = [Double](repeating: 0, count: segments)
        var tonalVectors = [Double](repeating: 0, count: segments)
        var s = 0
        for i in 0..<chroma.count {
            let t = (Double(i) + 0.5) / chroma.frameRate
            while s < segments - 1 && t >= boundaries[s + 1] { s += 1 }
            vectors[s] += 1
            guard tonal[i] else { continue }
            tonalVectors[s] += 1
            for k in 0..<12 { sums[12 * s + k] += compressed[12 * i + k] }
        }
        var result: [(time: Double, triad: Int, weight: Double)] = []
        for s in 0..<segments where tonalVectors[s] > 0 {
            let segment = Array(sums[(12 * s)..<(12 * s + 12)])
            let mean = segment.reduce(0, +) / 12
            var best = -1, bestValue = -Double.infinity
            for triad in 0..<24 {
                let root = triad % 12, third = triad < 12 ? 4 : 3
                // Pearson with a 0/1 triad template: the template's mean and norm are the same for
                // every triad, so the centred sum over its three pitch classes ranks them alike.
                let value = segment[root] + segment[(root + third) % 12] + segment[(root + 7) % 12] - 3 * mean
                if value > bestValue { bestValue = value; best = triad }
            }
            guard best >= 0, bestValue > 0 else { continue }
            result.append(
                (
                    (boundaries[s] + boundaries[s + 1]) / 2, best,
                    (boundaries[s + 1] - boundaries[s]) * tonalVectors[s] / vectors[s]
                ))
        }
        return result
    }

    /// Second stage of a two-stage key decision (after W. Chai and B. Vercoe, "Detection of key
    /// change in classical piano music", ISMIR 2005: first the key signature, then the tonic
    /// within it): the tonic of a range from the chords it dwells on and, for the last range,
    /// where the music comes to rest.
    ///
    /// The profile correlation sees mostly the pitch-class set, which the key `key` shares
    /// with its relative major/minor entirely and with the key a fifth below in six of seven
    /// notes; it separates them poorly (a natural-minor song reads as its relative major, a rock
    /// song with a flat seventh as its subdominant key). The tonic triad is the chord a tonal
    /// piece returns to most (the "tonal centre" of Temperley, *Music and Probability*, 2007,
    /// ch. 7; a tonic-chord prior as in Mauch & Dixon's chord-key models, IEEE TASLP 2010) and
    /// closes on. Each candidate, `key`, its relative and the key a fifth below in the same
    /// mode, is scored by its mean profile correlation over the range (`scores` / `weights`)
    /// plus `tonicChordWeight` × the share of the range's time whose best triad is its tonic
    /// triad (`triadShares`, indexed like keys) plus, when `closing` is given,
    /// `closingChordWeight` × the Pearson correlation of the closing chroma with its tonic
    /// triad.
    ///
    /// The key a fifth below undoes the classical confusion with the dominant key, whose
    /// leading tone secondary dominants and tonicised half cadences supply. The key a fifth
    /// above is not a candidate, although a mixolydian rock song (I-♭VII-IV) uses exactly its
    /// subdominant key's scale: songs that dwell on their dominant chord (V as often as I)
    /// then read as the dominant key, which cost more on the development set than the
    /// mixolydian cases gained (docs/analyses/key.md).
    static func tonicKey(
        _ key: Int, scores: ArraySlice<Double>, weights: ArraySlice<Double>, triadShares: [Double],
        closing: [Double]?, tonicChordWeight: Double, closingChordWeight: Double
    ) -> Int {
        let tonic = key % 12, minor = key >= 12
        let relative = minor ? (tonic + 3) % 12 : 12 + (tonic + 9) % 12
        let fifthBelow = (minor ? 12 : 0) + (tonic + 5) % 12
        let total = weights.reduce(0, +)
        guard total > 0 else { return key }
        let base = scores.startIndex
        var best = key, bestValue = -Double.infinity
        for candidate in [key, relative, fifthBelow] {
            var sum = 0.0
            for (j, w) in weights.enumerated() where w > 0 { sum += scores[base + 24 * j + candidate] }
            var value = sum / total
            if candidate < triadShares.count { value += tonicChordWeight * triadShares[candidate] }
            if let closing, closingChordWeight != 0 {
                var triad = [Double](repeating: 0, count: 12)
                for interval in [0, candidate >= 12 ? 3 : 4, 7] { triad[(candidate % 12 + interval) % 12] = 1 }
                value += closingChordWeight * Smoothing.pearson(closing, triad)
            }
            if value > bestValue { bestValue = value; best = candidate }
        }
        return best
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
