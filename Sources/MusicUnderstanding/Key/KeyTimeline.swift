/// The smoothing model of the key timeline: a hidden Markov model over the 24 keys, decoded with
/// the Viterbi algorithm (K. Noland and M. Sandler, "Key estimation using a hidden Markov model",
/// ISMIR 2006; and "Signal processing parameters for tonality estimation", AES 2007).
///
/// Each time step (a segment of the piece) scores every key by its profile correlation with the
/// chroma of the surrounding context, scaled by the step's duration and by how tonal the step
/// is; staying in a key is free and changing key costs a fixed penalty. In log-probability terms
/// this is an HMM whose self-transition probability is close to 1 and whose emission
/// log-likelihood is proportional to the correlation. A modulation is therefore chosen only when
/// the new key's correlation advantage, summed over the time it lasts, exceeds the penalty: it
/// needs several bars of evidence, and a song in one key stays one range.
///
/// ``decodeSignatures()`` decodes in two stages instead, as W. Chai and B. Vercoe ("Detection of
/// key change in classical piano music", ISMIR 2005) do: first the key without its mode, a major
/// key and its relative minor counting as one (12 states), then the mode of each range.
struct KeyTimeline {
    /// Per-step scores: `scores[step * 24 + key]`, keys 0-11 major on C...B, 12-23 minor.
    var scores: [Double]
    /// Number of steps.
    var steps: Int
    /// Cost of one change of key, in the units of the scores.
    var modulationPenalty: Double

    /// The best key sequence over the 24 keys, one key index per step.
    func decode() -> [Int] {
        Self.viterbi(scores, steps: steps, states: 24, penalty: modulationPenalty)
    }

    /// The best key sequence decoded over the 12 key signatures (diatonic collections), then the
    /// mode of each signature's range: one key index per step.
    ///
    /// A major key and its relative minor share all seven pitch classes, so the profile
    /// correlation divides the evidence of one diatonic collection between two keys, and a
    /// passage that leans on the relative (a verse on vi, a chorus on I) tips the 24-key
    /// decoding between them, or towards a neighbouring collection whose single key happens to
    /// score higher (the subdominant, which shares six pitch classes). Here each step scores a
    /// signature by the better of its two keys, the Viterbi path over the 12 signatures (same
    /// penalty) sets where the key changes, and each range of one signature takes the mode whose
    /// correlation summed over the range is higher (Chai and Vercoe decode the mode with a
    /// second HMM; one mode per range is that HMM with an unbounded penalty); a change between
    /// relative keys alone is therefore not reported.
    func decodeSignatures() -> [Int] {
        guard steps > 0 else { return [] }
        var signatures = [Double](repeating: 0, count: 12 * steps)
        for t in 0..<steps {
            for major in 0..<12 {
                signatures[12 * t + major] = max(scores[24 * t + major], scores[24 * t + Self.relativeMinor(major)])
            }
        }
        var path = Self.viterbi(signatures, steps: steps, states: 12, penalty: modulationPenalty)
        var start = 0
        while start < steps {
            var end = start
            while end + 1 < steps && path[end + 1] == path[start] { end += 1 }
            let major = path[start], minor = Self.relativeMinor(major)
            var majorSum = 0.0, minorSum = 0.0
            for t in start...end {
                majorSum += scores[24 * t + major]
                minorSum += scores[24 * t + minor]
            }
            let key = majorSum >= minorSum ? major : minor
            for t in start...end { path[t] = key }
            start = end + 1
        }
        return path
    }

    /// Key index of the relative minor of the major key on pitch class `major` (a minor third below).
    static func relativeMinor(_ major: Int) -> Int { 12 + (major + 9) % 12 }

    /// Viterbi path over `states` states with per-step `scores[step * states + state]`, free
    /// self-transitions and a fixed `penalty` for any change.
    private static func viterbi(_ scores: [Double], steps: Int, states: Int, penalty modulationPenalty: Double) -> [Int] {
        guard steps > 0, states > 0 else { return [] }
        let keys = states
        var delta = [Double](repeating: 0, count: keys)
        var next = [Double](repeating: 0, count: keys)
        var back = [UInt8](repeating: 0, count: steps * keys)
        for k in 0..<keys { delta[k] = scores[k] }
        for t in 1..<max(1, steps) {
            var bestKey = 0
            for k in 1..<keys where delta[k] > delta[bestKey] { bestKey = k }
            let switched = delta[bestKey] - modulationPenalty
            for k in 0..<keys {
                if delta[k] >= switched {
                    next[k] = delta[k]
                    back[t * keys + k] = UInt8(k)
                } else {
                    next[k] = switched
                    back[t * keys + k] = UInt8(bestKey)
                }
                next[k] += scores[t * keys + k]
            }
            swap(&delta, &next)
        }
        var path = [Int](repeating: 0, count: steps)
        var last = 0
        for k in 1..<keys where delta[k] > delta[last] { last = k }
        path[steps - 1] = last
        var t = steps - 1
        while t > 0 {
            path[t - 1] = Int(back[t * keys + path[t]])
            t -= 1
        }
        return path
    }
}
