import Foundation

/// The tonic stage of the key analysis (see ``KeyAnalyzer``): among the key of a range, its
/// relative and the key a fifth below, the one whose tonic triad the music dwells on (one chord
/// per beat) and, when the recording ends in a release, its closing chord (docs/analyses/key.md).
extension KeyAnalyzer {
    /// Summed compressed chroma of the last ``Configuration/finalChordDuration`` seconds of tonal
    /// vectors, or nil when the stage is disabled, there are none, or the input does not end in a
    /// release (its last half second is not below ``Configuration/endingLevel`` × the median
    /// spectral energy of the tonal vectors).
    func closingChroma(_ chroma: ChromaFeatures, compressed: [Double], tonal: [Bool]) -> [Double]? {
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
    func beatTriads(
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
}
