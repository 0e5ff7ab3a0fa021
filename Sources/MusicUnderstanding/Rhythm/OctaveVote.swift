import Foundation

/// The tempo-octave step of the rhythm chain: which of two octave-related beat periods a
/// listener taps, decided by the votes of short windows of the onset curve.
///
/// Method (M. E. P. Davies & M. D. Plumbley, "Context-dependent beat tracking of musical audio",
/// IEEE TASLP 15(3), 2007, sec. II-III; the periodicity model of Essentia's `TempoTapDegara`,
/// N. Degara et al., "Reliability-informed beat tracking of musical signals", IEEE TASLP 20(1),
/// 2012, sec. III-A):
/// 1. the onset curve, at about 86 frames per second, minus its moving mean over 0.19 s and
///    half-wave rectified (the adaptive threshold, sec. II-B);
/// 2. cut into 6 s windows every 1.5 s; in each, the unbiased autocorrelation (eq. 5);
/// 3. every beat period `τ` scored by the comb of its first four multiples, the `p`-th averaged
///    over `2p − 1` lags (sec. III-B), weighted by a Rayleigh curve that peaks at
///    ``Configuration/LevelSettings/octaveVotePeriod`` (eq. 7);
/// 4. each window's scores normalised to sum to 1 and smoothed over ±2 lags, then summed in the
///    log domain over the windows: the constant-tempo case of the Viterbi decoding of the
///    period across windows (sec. III-C), in which every window votes with the likelihood it
///    gives each period rather than with the average periodicity.
///
/// Averaging the autocorrelation over a whole song (``TempoEstimator``) favours the eighth notes
/// of strummed accompaniment, whose short period keeps its phase across windows better than the
/// beat's; per-window likelihoods do not. The evidence is in docs/analyses/rhythm.md.
struct OctaveVote: Sendable {
    /// The Rayleigh parameter: the period of the largest prior weight, seconds.
    var preferredPeriod: Double
    /// Window length, seconds (512 frames at 86 fps, Davies & Plumbley 2007).
    var windowSeconds: Double = 512 * 512 / 44_100
    /// Hop between windows, seconds (128 frames at 86 fps).
    var hopSeconds: Double = 128 * 512 / 44_100

    /// The summed log-likelihood of each beat period, or `nil` when the curve is shorter than
    /// one window.
    struct Votes: Sendable {
        /// Frames per second of the lags.
        var rate: Double
        /// The lag of `scores[0]`.
        var firstLag: Int
        /// Summed log-likelihoods, one per lag from `firstLag`.
        var scores: [Double]

        /// The vote for a period of `seconds` (the nearest lag), or `nil` outside the lags.
        func score(period seconds: Double) -> Double? {
            let i = Int((seconds * rate).rounded()) - firstLag
            return scores.indices.contains(i) ? scores[i] : nil
        }

        /// Whether the vote for a period of `seconds` is higher than that for `other` seconds
        /// (false when either lies outside the lags).
        func prefer(period seconds: Double, to other: Double) -> Bool {
            guard let a = score(period: seconds), let b = score(period: other) else { return false }
            return a > b
        }
    }

    /// The votes of `curve` (one value per frame at `frameRate`) for every beat period between
    /// `60 / maximumBPM` and `60 / minimumBPM` seconds that fits four times in a window; with a
    /// `span` (frames of `curve`), only the windows that lie within it vote.
    func votes(_ curve: [Float], frameRate: Double, minimumBPM: Double, maximumBPM: Double, span: Range<Int>? = nil) -> Votes? {
        guard frameRate > 0, minimumBPM > 0, maximumBPM > minimumBPM else { return nil }
        // 1. About 86 frames per second: the largest value of each group of frames.
        let factor = max(1, Int((frameRate / (44_100 / 512)).rounded()))
        let rate = frameRate / Double(factor)
        let reduced = stride(from: 0, to: curve.count - factor + 1, by: factor).map { s in
            curve[s..<(s + factor)].max() ?? 0
        }
        let length = Int((windowSeconds * rate).rounded())
        let hop = max(1, Int((hopSeconds * rate).rounded()))
        guard length >= 64, reduced.count >= length else { return nil }
        // The adaptive threshold: minus the centred moving mean over 16 frames at 86 fps.
        let mean = Smoothing.movingAverage(reduced, half: max(1, Int((8 * 512 / 44_100 * rate).rounded())))
        let thresholded = zip(reduced, mean).map { max(0, $0 - $1) }
        // 3. The periods: the comb's fourth multiple and its width must fit in the window.
        let firstLag = max(2, Int((60 / maximumBPM * rate).rounded(.down)))
        let lastLag = min(Int((60 / minimumBPM * rate).rounded(.up)), (length - 4) / 4)
        guard firstLag < lastLag else { return nil }
        let beta = preferredPeriod * rate
        let rayleigh = (firstLag...lastLag).map { l -> Double in
            let t = Double(l)
            return t / (beta * beta) * exp(-t * t / (2 * beta * beta))
        }
        var sums = [Double](repeating: 0, count: rayleigh.count)
        var acf = [Double](repeating: 0, count: length)
        var comb = [Double](repeating: 0, count: rayleigh.count)
        var start = span.map { ($0.lowerBound + factor - 1) / factor } ?? 0
        let end = min(thresholded.count, span.map { $0.upperBound / factor } ?? thresholded.count)
        guard start + length <= end else { return nil }
        while start + length <= end {
            // 2. The unbiased autocorrelation of the window.
            thresholded.withUnsafeBufferPointer { x in
                for l in 0..<length {
                    var r: Float = 0
                    for i in 0..<(length - l) { r += x[start + i] * x[start + i + l] }
                    acf[l] = Double(r) / Double(length - l)
                }
            }
            // 3. The comb of four multiples, weighted by the Rayleigh curve, normalised.
            var total = 0.0
            for (k, l) in (firstLag...lastLag).enumerated() {
                var v = 0.0
                for p in 1...4 {
                    var m = 0.0
                    for d in (1 - p)...(p - 1) { m += max(0, acf[p * l + d]) }
                    v += m / Double(2 * p - 1)
                }
                comb[k] = v * rayleigh[k]
                total += comb[k]
            }
            if total > 0 {
                // 4. Smoothed over ±2 lags and summed in the log domain.
                let floor = 1e-4 / Double(comb.count)
                for k in comb.indices {
                    var s = 0.0
                    for j in max(0, k - 2)...min(comb.count - 1, k + 2) { s += comb[j] }
                    sums[k] += log(s / 5 / total + floor)
                }
            }
            start += hop
        }
        return Votes(rate: rate, firstLag: firstLag, scores: sums)
    }
}

/// The curve the window votes are taken on (the tempo-estimation curve) and its votes under the
/// settings of one analyzer, computed on first use: steps 5 (near ties of the faster level) and 8
/// (the slower level) share them.
final class VotingCurve {
    /// One value per frame.
    let curve: [Float]
    /// Frames per second of `curve`.
    let frameRate: Double
    private let analyzer: RhythmAnalyzer

    /// The votes of `curve` at `frameRate` with the settings of `analyzer`, not yet computed.
    init(_ curve: [Float], frameRate: Double, analyzer: RhythmAnalyzer) {
        self.curve = curve
        self.frameRate = frameRate
        self.analyzer = analyzer
    }

    /// The window votes of ``OctaveVote`` on the curve (``RhythmAnalyzer/octaveVotes(_:frameRate:span:)``), computed once.
    lazy var votes: OctaveVote.Votes? = analyzer.octaveVotes(curve, frameRate: frameRate)

    /// The votes of the windows within `span` (frames of the curve) alone; `nil` when no window
    /// fits in it.
    func votes(in span: Range<Int>) -> OctaveVote.Votes? {
        analyzer.octaveVotes(curve, frameRate: frameRate, span: span)
    }
}

extension RhythmAnalyzer {
    /// Whether the window votes (``OctaveVote``) of `voting` prefer twice the beat period of a
    /// beat grid at `bpm` to the period itself, the slower level being at least
    /// ``Configuration/TempoSettings/minimumBPM``; with a `span` (frames of the curve), the votes
    /// of its windows alone.
    func votesForSlowerLevel(_ voting: VotingCurve, beatsPerMinute bpm: Float?, span: Range<Int>? = nil) -> Bool {
        guard let bpm, bpm > 0, Double(bpm) / 2 >= configuration.tempo.minimumBPM else { return false }
        let votes = span.map { voting.votes(in: $0) } ?? voting.votes
        return votes?.prefer(period: 120 / Double(bpm), to: 60 / Double(bpm)) ?? false
    }

    /// Whether the window votes (``OctaveVote``) of `voting` prefer half the beat period `period`
    /// (frames of the curve) to the period itself.
    func votesForFasterLevel(_ voting: VotingCurve, period: Double) -> Bool {
        let frameRate = voting.frameRate
        guard period > 0, frameRate > 0 else { return false }
        return voting.votes?.prefer(period: period / 2 / frameRate, to: period / frameRate) ?? false
    }

    /// The window votes of ``OctaveVote`` on `curve` over the tempo range (of the windows within
    /// `span`, frames, when one is given), or `nil` when ``Configuration/LevelSettings/octaveVoting``
    /// is off or no window fits.
    func octaveVotes(_ curve: [Float], frameRate: Double, span: Range<Int>? = nil) -> OctaveVote.Votes? {
        guard configuration.level.octaveVoting else { return nil }
        return OctaveVote(preferredPeriod: configuration.level.octaveVotePeriod).votes(
            curve, frameRate: frameRate, minimumBPM: configuration.tempo.minimumBPM, maximumBPM: configuration.tempo.maximumBPM, span: span)
    }

    /// The coefficient of variation of the beats' accents, the largest value of `curve` within
    /// `radius` frames of each of `frames`: 0 when every beat is alike. An isochronous stream of
    /// identical events (a click track: 0.07) is its own beat and is not halved (the
    /// estimator's isochronous exemption, ``TempoEstimator``); the beats of music vary far more
    /// (0.5 to 1.0 on the Beatles songs whose beats were halved).
    func accentVariation(_ frames: [Int], curve: [Float], radius: Int) -> Double {
        let accents = frames.map { Double(PeakPicking.windowMaximum(curve, around: $0, radius: radius)) }
        guard accents.count >= 2 else { return 0 }
        let mean = accents.reduce(0, +) / Double(accents.count)
        guard mean > 0 else { return 0 }
        let variance = accents.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(accents.count)
        return variance.squareRoot() / mean
    }

    /// Keeps every other beat of `times` and `beats` (frames at `frameRate`). The phase kept is
    /// the one on which the harmony changes more (`harmonicChange`, values at `harmonicRate` per
    /// second, ``harmonicChange(_:)``): chords change on beats rather than between them (Goto
    /// 2001, sec. 3.2, where chord changes tell beats from off-beats). Without harmonic change,
    /// the phase holding all the downbeats (`downbeatIndices`, indices into the beats), else the
    /// one with the stronger onsets on `curve` (``strongerPhase(_:curve:radius:)``).
    func halve(
        _ times: inout [Double], beats: inout TrackedBeats, frameRate: Double, harmonicChange: [Float], harmonicRate: Double,
        downbeatIndices: [Int], curve: [Float]
    ) {
        let change = changeByPhase(beats.frames, frameRate: frameRate, harmonicChange: harmonicChange, harmonicRate: harmonicRate)
        let phase =
            change[0] != change[1]
            ? (change[1] > change[0] ? 1 : 0)
            : downbeatPhase(downbeatIndices)
                ?? strongerPhase(beats.frames, curve: curve, radius: beats.radius)
        times = Grid.everyOther(times, phase: phase)
        beats.frames = Grid.everyOther(beats.frames, phase: phase)
    }

    /// The summed harmonic change at the even and at the odd beats of `frames` (at `frameRate`):
    /// the largest value of `harmonicChange` within one block of each beat (the value nearest the
    /// beat's ``harmonicChangePosition(ofFrame:frameRate:harmonicRate:)``); `[0, 0]` without it.
    func changeByPhase(_ frames: [Int], frameRate: Double, harmonicChange: [Float], harmonicRate: Double) -> [Double] {
        var sums = [0.0, 0.0]
        guard harmonicRate > 0, frameRate > 0, !harmonicChange.isEmpty else { return sums }
        for (i, f) in frames.enumerated() {
            let block = Int(harmonicChangePosition(ofFrame: f, frameRate: frameRate, harmonicRate: harmonicRate).rounded())
            sums[i % 2] += Double(PeakPicking.windowMaximum(harmonicChange, around: block, radius: 1))
        }
        return sums
    }
}
