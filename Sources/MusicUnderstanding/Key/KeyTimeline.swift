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
struct KeyTimeline {
    /// Per-step scores: `scores[step * 24 + key]`, keys 0-11 major on C...B, 12-23 minor.
    var scores: [Double]
    /// Number of steps.
    var steps: Int
    /// Cost of one change of key, in the units of the scores.
    var modulationPenalty: Double

    /// The best key sequence, one key index per step.
    func decode() -> [Int] {
        guard steps > 0 else { return [] }
        let keys = 24
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
