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
/// Viterbi decoding costs `O(frames × periods²)` for the period changes only. The positions inside
/// a beat advance without a choice, so a state's score is the entry score of its beat plus the
/// observation at the beat states since then (a log-likelihood ratio against the non-beat
/// states): one entry score per period and frame is kept, in a ring per period, and the
/// observation is read off cumulative sums of the ratio (``BeatStates``). Back-pointers are one
/// byte per period per frame. The maximisation over the sources of each period runs over
/// contiguous columns of the transition matrix in four independent lanes
/// (``firstMaximum(of:plus:count:)``), which the compiler vectorises.
struct BeatTracker: Sendable {
    /// The beat-tracking step's settings.
    var settings: RhythmAnalyzer.Configuration.BeatSettings
    /// The texture's share of impulsive onsets (0 legato … 1 impulsive, ``RhythmAnalyzer/impulsiveShare(onset:curve:)``),
    /// which sets the weight of the tempo prior (``periodPriorWeight``).
    var impulsiveShare: Float

    /// A tracker with `settings` for a texture with `impulsiveShare` (legato when not given).
    init(settings: RhythmAnalyzer.Configuration.BeatSettings, impulsiveShare: Float = 0) {
        self.settings = settings
        self.impulsiveShare = impulsiveShare
    }

    /// The weight κ of the per-beat tempo prior: ``RhythmAnalyzer/Configuration/BeatSettings/periodPriorWeight``
    /// in a legato texture, up to ``RhythmAnalyzer/Configuration/BeatSettings/impulsivePeriodPriorWeight``
    /// in an impulsive one, linear between.
    ///
    /// Performed music carries expressive tempo that changes from beat to beat, which the tracker
    /// must follow (the local tempo changes of performed Chopin mazurkas are what make their beats
    /// hard to track: Grosche, Müller & Sapp 2010, "What makes beat tracking difficult? A case study
    /// on Chopin mazurkas", ISMIR), most freely where the notes start softly (bowed, blown, sung);
    /// drummed and programmed music holds its tempo, so there a run of beats at another period is
    /// more likely a wrong metrical level (a 5:4 or 4:3 level the onsets also fit) than a tempo
    /// change. Struck and plucked notes measure impulsive too; the stronger prior still follows a
    /// smooth sway of ±20 % (docs/analyses/rhythm.md, "Tempo held by the texture").
    var periodPriorWeight: Double {
        RhythmAnalyzer.byTexture(
            legato: settings.periodPriorWeight, impulsive: settings.impulsivePeriodPriorWeight, impulsiveShare: impulsiveShare)
    }

    /// Decodes beat frames from `activation` (values in `(0, 1)`), with beat periods between
    /// `minPeriod` and `maxPeriod` frames.
    ///
    /// With ``RhythmAnalyzer/Configuration/BeatSettings/decodesAtWholeFramePeriod`` the activation is first
    /// resampled (nearest frame) so that `centrePeriod` becomes the nearest whole number of
    /// frames, the decoding runs there, and the beats are mapped back to the nearest frame.
    ///
    /// `passages` (``TempoRegimes``) centre the tempo prior on another period from their first
    /// frame on, as a ratio to `centrePeriod`.
    func track(_ activation: [Float], minPeriod: Int, maxPeriod: Int, centrePeriod: Double, passages: [TempoRegimes.Change] = []) -> [Int] {
        let whole = centrePeriod.rounded()
        guard settings.decodesAtWholeFramePeriod, centrePeriod.isFinite, whole >= 2,
            abs(whole - centrePeriod) > 1e-6, activation.count > 1
        else {
            return decode(activation, minPeriod: minPeriod, maxPeriod: maxPeriod, centrePeriod: centrePeriod, passages: passages)
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
        let warpedPassages = passages.map { TempoRegimes.Change(frame: Int((Double($0.frame) * warp).rounded()), ratio: $0.ratio) }
        let beats = decode(warped, minPeriod: lo, maxPeriod: hi, centrePeriod: whole, passages: warpedPassages)
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
    func decode(_ activation: [Float], minPeriod: Int, maxPeriod: Int, centrePeriod: Double, passages: [TempoRegimes.Change] = []) -> [Int] {
        let n = activation.count
        guard let space = stateSpace(frames: n, minPeriod: minPeriod, maxPeriod: maxPeriod, centrePeriod: centrePeriod) else { return [] }
        let periods = space.periods, offsets = space.offsets, total = space.ringSize
        let fromLo = space.fromLo, columnStart = space.columnStart, columns = space.columns
        let m = periods.count
        // A passage of another tempo moves the prior's centre: the difference of the two priors
        // is added to each beat's entry (the prior depends on the beat's period only).
        let shifts = passages.map { passage -> (frame: Int, delta: [Double]?) in
            guard passage.ratio != 1, passage.ratio > 0 else { return (passage.frame, nil) }
            let w = periodPriorWeight, centre = max(1, centrePeriod), moved = max(1, centrePeriod * passage.ratio)
            return (
                passage.frame,
                periods.map { p in
                    let old = log2(Double(p) / centre), new = log2(Double(p) / moved)
                    return -w * (new * new - old * old)
                }
            )
        }
        var shiftIndex = -1
        var delta: [Double]?
        // Ring of entry scores per period: the beat of period j that starts at frame s keeps its
        // entry score in slot s mod τ_j for τ_j frames (beats before the first frame enter at 0).
        var score = [Double](repeating: 0, count: total)
        // The observation, as a log-likelihood ratio of beat against non-beat states, summed
        // from the first frame: cum[x] = Σ_{u < x} llr(u). The positions inside a beat advance
        // without a choice, so a state's score is its beat's entry score plus the ratios of the
        // beat-state frames since that entry, a difference of two cumulative sums per range.
        let obsL = settings.observationLambda
        var cum = [Double](repeating: 0, count: n + 1)
        for t in 0..<n {
            let a = Double(activation[t])
            cum[t + 1] = cum[t] + log(a * (obsL - 1) / (1 - a))
        }
        let ranges = periods.indices.map { BeatStates(period: periods[$0], width: space.beatWidth[$0]) }
        var back = [UInt8](repeating: 0, count: n * m)
        var entry = [Double](repeating: 0, count: m)
        var ends = [Double](repeating: 0, count: m)
        // t mod τ_j: the slot of the beat that starts at frame t (and of the one that started
        // τ_j frames before, whose last position is at t − 1).
        var phase = [Int](repeating: 1, count: m)
        score.withUnsafeMutableBufferPointer { sc in
            columns.withUnsafeBufferPointer { columnBuffer in
                back.withUnsafeMutableBufferPointer { bp in
                    cum.withUnsafeBufferPointer { c in
                        for t in 1..<n {
                            while shiftIndex + 1 < shifts.count, shifts[shiftIndex + 1].frame <= t {
                                shiftIndex += 1
                                delta = shifts[shiftIndex].delta
                            }
                            // Score of the last position of every period at t − 1: the entry of
                            // the beat that started at t − τ, plus its beat states' ratios.
                            for i in 0..<m {
                                ends[i] = sc[offsets[i] + phase[i]] + ranges[i].sum(c, start: t - periods[i], through: periods[i] - 1)
                            }
                            ends.withUnsafeBufferPointer { endBuffer in
                                guard let endBase = endBuffer.baseAddress, let columnBase = columnBuffer.baseAddress else { return }
                                for j in 0..<m {
                                    let (best, k) = Self.firstMaximum(
                                        of: endBase + fromLo[j], plus: columnBase + columnStart[j], count: columnStart[j + 1] - columnStart[j])
                                    entry[j] = delta.map { best + $0[j] } ?? best
                                    bp[t * m + j] = UInt8(k.map { fromLo[j] + $0 } ?? j)
                                }
                            }
                            for j in 0..<m { sc[offsets[j] + phase[j]] = entry[j] }
                            for j in 0..<m { phase[j] = phase[j] + 1 == periods[j] ? 0 : phase[j] + 1 }
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
        }
        // Best final state: position φ of period j at the last frame belongs to the beat that
        // started at n − 1 − φ.
        var bestJ = 0, bestPhi = 0, best = -Double.infinity
        cum.withUnsafeBufferPointer { c in
            for j in 0..<m {
                let tau = periods[j]
                for phi in 0..<tau {
                    let start = n - 1 - phi
                    let v = score[offsets[j] + start % tau] + ranges[j].sum(c, start: start, through: phi)
                    if v > best { best = v; bestJ = j; bestPhi = phi }
                }
            }
        }
        return space.beats(endingIn: bestJ, position: bestPhi, frames: n, back: back)
    }

    /// The largest `a[k] + b[k]` for `k` in `0..<count`, and the first `k` that reaches it (`nil`
    /// when every sum is −∞): the maximisation over the sources of one period change. The
    /// maximum is taken in four independent lanes (exact: a maximum does not round), each keeping
    /// the index of its first strict maximum; the first index overall is the smallest of the
    /// lanes' indices that reach the maximum, which is the index a sequential scan keeping the
    /// first strict maximum would return.
    @inline(__always)
    static func firstMaximum(of a: UnsafePointer<Double>, plus b: UnsafePointer<Double>, count: Int) -> (Double, Int?) {
        var b0 = -Double.infinity, b1 = b0, b2 = b0, b3 = b0
        var i0 = 0, i1 = 1, i2 = 2, i3 = 3
        var k = 0
        while k + 4 <= count {
            let v0 = a[k] + b[k], v1 = a[k + 1] + b[k + 1]
            let v2 = a[k + 2] + b[k + 2], v3 = a[k + 3] + b[k + 3]
            i0 = v0 > b0 ? k : i0
            b0 = v0 > b0 ? v0 : b0
            i1 = v1 > b1 ? k + 1 : i1
            b1 = v1 > b1 ? v1 : b1
            i2 = v2 > b2 ? k + 2 : i2
            b2 = v2 > b2 ? v2 : b2
            i3 = v3 > b3 ? k + 3 : i3
            b3 = v3 > b3 ? v3 : b3
            k += 4
        }
        // The tail's indices are above every lane's, so lane 0 keeps its first strict maximum.
        while k < count {
            let v = a[k] + b[k]
            if v > b0 { b0 = v; i0 = k }
            k += 1
        }
        let best = max(max(b0, b1), max(b2, b3))
        guard best > -.infinity else { return (best, nil) }
        var first = Int.max
        if b0 == best { first = i0 }
        if b1 == best { first = min(first, i1) }
        if b2 == best { first = min(first, i2) }
        if b3 == best { first = min(first, i3) }
        return (best, first)
    }
}
