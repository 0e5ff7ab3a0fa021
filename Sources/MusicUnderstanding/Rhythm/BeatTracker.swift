import Foundation

/// Beat tracking with a hidden Markov model over a beat-period/beat-position state space.
///
/// The state space and transition model are those of Krebs, Böck & Widmer 2015, "An efficient
/// state-space model for joint tempo and meter tracking" (ISMIR), restricted to one beat
/// (madmom's `BeatStateSpace`, as used by Böck, Krebs & Widmer 2016, "Joint beat and downbeat
/// tracking with recurrent neural networks"): a state is a beat period `τ` (an integer number
/// of frames) and a position `φ ∈ 0..<τ` inside the beat. The position advances by one frame
/// per frame; only at the end of a beat may the period change, with probability
/// `∝ exp(-λ |τ'/τ − 1|)` (sec. 2.3 of Krebs 2015), so the tracker follows tempo changes and
/// rubato but never drifts: each beat is re-anchored to the observations.
///
/// Observation model (Krebs 2015, sec. 2.4): the first and last `τ / observationLambda`
/// positions are "beat" states and emit with probability `a(t)`, all other positions with
/// `(1 − a(t)) / (observationLambda − 1)`, where `a(t)` is the onset activation in `[0, 1]`.
///
/// Viterbi decoding costs `O(frames × periods²)` for the period changes only: positions are kept
/// in one ring per period (advancing a position is a change of index, not a copy), and the
/// observation term is added to the few beat states only (it is a log-likelihood ratio against
/// the non-beat states). Back-pointers are one byte per period per frame.
struct BeatTracker: Sendable {
    /// Settings.
    var configuration: RhythmAnalyzer.Configuration

    /// Decodes beat frames from `activation` (values in `(0, 1)`), with beat periods between
    /// `minPeriod` and `maxPeriod` frames.
    ///
    /// With ``RhythmAnalyzer/Configuration/BeatSettings/decodesAtWholeFramePeriod`` the activation is first
    /// resampled (nearest frame) so that `centrePeriod` becomes the nearest whole number of
    /// frames, the decoding runs there, and the beats are mapped back to the nearest frame.
    func track(_ activation: [Float], minPeriod: Int, maxPeriod: Int, centrePeriod: Double) -> [Int] {
        let whole = centrePeriod.rounded()
        guard configuration.beats.decodesAtWholeFramePeriod, centrePeriod.isFinite, whole >= 2,
            abs(whole - centrePeriod) > 1e-6, activation.count > 1
        else {
            return decode(activation, minPeriod: minPeriod, maxPeriod: maxPeriod, centrePeriod: centrePeriod)
        }
        // Warped frame u corresponds to frame u / warp.
        let warp = whole / centrePeriod
        let n = activation.count
        let warpedCount = max(1, Int((Double(n - 1) * warp).rounded(.down)) + 1)
        var warped = [Float](repeating: 0, count: warpedCount)
        // Nearest frame: a one-frame onset peak keeps its height (linear interpolation would
        // split it between two frames and weaken its evidence); a frame is dropped or repeated
        // once in every 1 / |1 − warp| (at least 66) frames.
        for u in 0..<warpedCount {
            warped[u] = activation[min(n - 1, Int((Double(u) / warp).rounded()))]
        }
        let lo = Int((Double(minPeriod) * warp).rounded(.down)), hi = Int((Double(maxPeriod) * warp).rounded(.up))
        let beats = decode(warped, minPeriod: lo, maxPeriod: hi, centrePeriod: whole)
        var out: [Int] = []
        out.reserveCapacity(beats.count)
        for u in beats {
            let t = min(n - 1, max(0, Int((Double(u) / warp).rounded())))
            if out.last.map({ t > $0 }) ?? true { out.append(t) }
        }
        return out
    }

    /// The Viterbi decoding of ``track(_:minPeriod:maxPeriod:centrePeriod:)`` in the activation's
    /// own frames.
    func decode(_ activation: [Float], minPeriod: Int, maxPeriod: Int, centrePeriod: Double) -> [Int] {
        let n = activation.count
        let lo = max(2, minPeriod), hi = min(max(lo, maxPeriod), lo + 250)
        guard n > hi else { return [] }
        let periods = Array(lo...hi)
        let m = periods.count
        // Ring of scores per period: state (j, φ) at frame t lives at slot (t − φ) mod τ_j.
        var offsets = [Int](repeating: 0, count: m)
        var total = 0
        for j in 0..<m { offsets[j] = total; total += periods[j] }
        var score = [Double](repeating: 0, count: total)
        // Log transition between periods at a beat boundary.
        let lambda = configuration.beats.transitionLambda
        let maxChange = configuration.beats.maximumPeriodChange
        var logTrans = [Double](repeating: -.infinity, count: m * m)  // [from * m + to]
        for i in 0..<m {
            var sum = 0.0
            var row = [Double](repeating: 0, count: m)
            for j in 0..<m {
                let ratio = Double(periods[j]) / Double(periods[i])
                if abs(ratio - 1) <= maxChange { row[j] = exp(-lambda * abs(ratio - 1)) }
                sum += row[j]
            }
            for j in 0..<m where row[j] > 0 {
                // Tempo prior: a log-Gaussian around the global period, so that the tracker
                // follows gradual changes but does not settle on a metrically related level.
                let octaves = log2(Double(periods[j]) / max(1, centrePeriod))
                logTrans[i * m + j] = log(row[j] / sum) - configuration.beats.periodPriorWeight * octaves * octaves
            }
        }
        // Source range of each target period (the finite entries of its column), so the
        // maximisation below visits only allowed period changes.
        var fromLo = [Int](repeating: 0, count: m), fromHi = [Int](repeating: m - 1, count: m)
        for j in 0..<m {
            var lo = m, hi = -1
            for i in 0..<m where logTrans[i * m + j].isFinite { lo = min(lo, i); hi = max(hi, i) }
            if lo <= hi { fromLo[j] = lo; fromHi[j] = hi } else { fromLo[j] = j; fromHi[j] = j }
        }
        // Beat-state half widths.
        let beatWidth = periods.map { max(1, Int((Double($0) / configuration.beats.observationLambda).rounded())) }
        let obsL = configuration.beats.observationLambda
        var back = [UInt8](repeating: 0, count: n * m)
        var entry = [Double](repeating: 0, count: m)
        var ends = [Double](repeating: 0, count: m)
        score.withUnsafeMutableBufferPointer { sc in
            logTrans.withUnsafeBufferPointer { lt in
                back.withUnsafeMutableBufferPointer { bp in
                    for t in 0..<n {
                        if t > 0 {
                            // Scores of the last position of every period at t − 1, which sit at
                            // slot (t − 1 − (τ − 1)) mod τ = t mod τ.
                            for i in 0..<m { ends[i] = sc[offsets[i] + t % periods[i]] }
                            for j in 0..<m {
                                var best = -Double.infinity, arg = j
                                for i in fromLo[j]...fromHi[j] {
                                    let v = ends[i] + lt[i * m + j]
                                    if v > best { best = v; arg = i }
                                }
                                entry[j] = best
                                bp[t * m + j] = UInt8(arg)
                            }
                            for j in 0..<m { sc[offsets[j] + t % periods[j]] = entry[j] }
                        }
                        // Observation: log-likelihood ratio of beat against non-beat states.
                        let a = Double(activation[t])
                        let llr = log(a * (obsL - 1) / (1 - a))
                        for j in 0..<m {
                            let tau = periods[j], w = beatWidth[j]
                            for phi in 0..<w {
                                sc[offsets[j] + ((t - phi) % tau + tau) % tau] += llr
                            }
                            for phi in (tau - w)..<tau where phi >= w {
                                sc[offsets[j] + ((t - phi) % tau + tau) % tau] += llr
                            }
                        }
                        // Keep the numbers small.
                        if t & 255 == 255 {
                            var mx = -Double.infinity
                            for k in 0..<total where sc[k] > mx { mx = sc[k] }
                            if mx.isFinite { for k in 0..<total { sc[k] -= mx } }
                        }
                    }
                }
            }
        }
        // Best final state.
        var bestJ = 0, bestPhi = 0, best = -Double.infinity
        for j in 0..<m {
            let tau = periods[j]
            for phi in 0..<tau {
                let v = score[offsets[j] + ((n - 1 - phi) % tau + tau) % tau]
                if v > best { best = v; bestJ = j; bestPhi = phi }
            }
        }
        // Backtrack: positions count down to 0 (a beat), then the back-pointer names the
        // period of the previous beat.
        var beats: [Int] = []
        var j = bestJ, phi = bestPhi
        var t = n - 1
        while t >= 0 {
            if phi == 0 {
                beats.append(t)
                if t == 0 { break }
                j = Int(back[t * m + j])
                phi = periods[j] - 1
            } else {
                phi -= 1
            }
            t -= 1
        }
        return beats.reversed()
    }
}
