import Foundation

/// The activation steps of the rhythm chain (madmom's activation processors): the onset curves
/// that the tempo estimate and the beat tracker follow, the harmonic-change curve, the texture
/// (legato to impulsive) that chooses between whitened and linear onset strength, and the
/// activation in `(0, 1)` that the beat tracker's observation model reads (Krebs, Böck & Widmer
/// 2015, sec. 2.4).
extension RhythmAnalyzer {
    /// The beat-tracking curve: the broadband onset strength plus ``Configuration/OnsetSettings/lowBandBeatWeight``
    /// times the low-band one, clipped at ``Configuration/OnsetSettings/clipPercentile``; `nil` when a value is
    /// not finite.
    func beatTrackingCurve(_ onset: OnsetFeatures) -> [Float]? {
        // Beat-tracking curve: broadband plus low-band flux.
        var curve = onset.strength
        if onset.lowStrength.count == curve.count, configuration.onsets.lowBandBeatWeight != 0 {
            for i in curve.indices { curve[i] += configuration.onsets.lowBandBeatWeight * onset.lowStrength[i] }
        }
        guard curve.allSatisfy({ $0.isFinite }) else { return nil }
        // Clip isolated outliers (the first onset after silence is exaggerated by the adaptive
        // whitening) so that they do not dominate the local reference and the periodicity.
        if configuration.onsets.clipPercentile < 1, curve.count > 1 {
            let sorted = curve.sorted()
            let ceiling = sorted[Int(Double(sorted.count - 1) * max(0, configuration.onsets.clipPercentile))]
            if ceiling > 0 { for i in curve.indices where curve[i] > ceiling { curve[i] = ceiling } }
        }
        return curve
    }

    /// The curve the tempo is estimated from: the beat-tracking `curve` with the high band down-weighted to
    /// ``Configuration/OnsetSettings/highBandTempoWeight``.
    func tempoEstimationCurve(_ curve: [Float], onset: OnsetFeatures) -> [Float] {
        var weighted = curve
        if onset.highStrength.count == curve.count, configuration.onsets.highBandTempoWeight != 1 {
            let drop = 1 - configuration.onsets.highBandTempoWeight
            for i in weighted.indices { weighted[i] = max(0, weighted[i] - drop * onset.highStrength[i]) }
        }
        return weighted
    }

    /// `curve` with its first ``Configuration/TempoSettings/startFrames`` values capped at the 99th
    /// percentile of the rest, or `nil` when none exceeds it (or the cap is off).
    ///
    /// A file cut into music starts at full level: against the silence before it (and the adaptive
    /// whitening's empty memory) its first value is an onset of the file, not of the music, often
    /// a hundred times the median (191 against 1.1 on a 7-s MIR-1K clip). In an input of one
    /// autocorrelation window it is most of the window's energy and deflates every normalised
    /// lag, so the clip fails the pulse test. Capped, a start on a real hit keeps the weight of a
    /// strong onset.
    func startCapped(_ curve: [Float]) -> [Float]? {
        let start = configuration.tempo.startFrames
        guard start > 0, curve.count > 2 * start, let cap = Smoothing.quantile(curve[start...], 0.99),
            curve[..<start].contains(where: { $0 > cap })
        else { return nil }
        var capped = curve
        for i in 0..<start { capped[i] = min(capped[i], cap) }
        return capped
    }

    /// Harmonic-change curve at the chroma block rate: at each block, the half-wave rectified
    /// difference between the L1-normalised mean chroma of the next and of the previous
    /// `harmonicContextBlocks` blocks (a chord-change detection function after Harte, Sandler &
    /// Gasser 2006, whose smoothing ignores note-level arpeggiation).
    func harmonicChange(_ harmony: FrameFeature?) -> [Float] {
        guard let harmony, harmony.dimension == 12 else { return [] }
        let chroma = harmony.values
        let blocks = chroma.count / 12
        let w = max(1, configuration.onsets.harmonicContextBlocks)
        guard blocks > 2 * w, configuration.tempo.harmonicChangeWeight > 0 else { return [] }
        // Prefix sums of the normalised chroma.
        var prefix = [Float](repeating: 0, count: (blocks + 1) * 12)
        for b in 0..<blocks {
            var sum: Float = 0
            for c in 0..<12 { sum += chroma[b * 12 + c] }
            let scale: Float = sum > 0 ? 1 / sum : 0
            for c in 0..<12 { prefix[(b + 1) * 12 + c] = prefix[b * 12 + c] + chroma[b * 12 + c] * scale }
        }
        var out = [Float](repeating: 0, count: blocks)
        for b in w...(blocks - w) {
            var d: Float = 0
            for c in 0..<12 {
                let before = prefix[b * 12 + c] - prefix[(b - w) * 12 + c]
                let after = prefix[(b + w) * 12 + c] - prefix[b * 12 + c]
                if after > before { d += after - before }
            }
            out[b] = d / Float(w)
        }
        return out
    }

    /// The curve the beat tracker follows, chosen by the texture. Which onset detection function
    /// marks the onsets depends on the kind of onset (J. P. Bello, L. Daudet, S. Abdallah,
    /// C. Duxbury, M. Davies & M. Sandler, "A tutorial on onset detection in music signals",
    /// IEEE Trans. Speech and Audio Processing 13(5), 2005, sec. III and VI: energy-based
    /// functions for percussive onsets; spectral functions that weigh every band alike for the
    /// soft onsets of pitched, non-percussive notes; N. Collins, "A comparison of sound onset
    /// detection algorithms with emphasis on psychoacoustically motivated detection functions",
    /// AES 118th Convention, 2005, on the same split). In an impulsive texture the loudest onsets
    /// (kick, snare, a struck chord) carry the beat and the whitened flux raises off-beat hats and
    /// bass notes to their level; in a legato one (organ, strings, choir) the whitening is what
    /// finds the soft note changes at all. So the activation is the whitened curve mixed with the
    /// linear onset strength (means matched), by ``Configuration/BeatSettings/linearFluxBeatShare`` times the
    /// texture's place in ``Configuration/BeatSettings/impulsiveTexture`` (`impulsiveShare`, ``impulsiveShare(onset:curve:)``).
    func beatCurve(_ curve: [Float], onset: OnsetFeatures, impulsiveShare: Float) -> [Float] {
        let linear = onset.linearStrength
        guard configuration.beats.linearFluxBeatShare > 0, configuration.beats.linearFluxBeatShare.isFinite,
            linear.count == curve.count, !curve.isEmpty
        else { return curve }
        let share = configuration.beats.linearFluxBeatShare * impulsiveShare
        guard share > 0 else { return curve }
        return Self.meanMatchedMix(curve, with: linear, share: share) ?? curve
    }

    /// The curve the beat tracker follows, from the beat-tracking `curve` and the texture
    /// (`impulsiveShare`): the texture's mix of whitened and linear onset strength
    /// (``beatCurve(_:onset:impulsiveShare:)``), leaning on the low band as far as the texture is
    /// impulsive (``withLowBand(_:onset:impulsiveShare:)``), and mixed with the harmonic change
    /// when the pulse was found there and not in the onsets (`pulseFromHarmonicChange`,
    /// ``withHarmonicChange(_:harmonicChange:harmonicRate:frameRate:)``).
    func followedCurve(
        _ curve: [Float], onset: OnsetFeatures, impulsiveShare: Float, pulseFromHarmonicChange: Bool,
        harmonicChange: [Float], harmonicRate: Double
    ) -> [Float] {
        let followed = withLowBand(beatCurve(curve, onset: onset, impulsiveShare: impulsiveShare), onset: onset, impulsiveShare: impulsiveShare)
        guard pulseFromHarmonicChange else { return followed }
        return withHarmonicChange(followed, harmonicChange: harmonicChange, harmonicRate: harmonicRate, frameRate: onset.frameRate)
    }

    /// `curve` plus ``Configuration/BeatSettings/lowBandTrackingWeight`` times `impulsiveShare` times the
    /// low-band onset strength: the curve the beat tracker follows leans on the kick and the bass
    /// more than the tempo estimate's curve does (``beatTrackingCurve(_:)`` already holds
    /// ``Configuration/OnsetSettings/lowBandBeatWeight`` of it).
    ///
    /// Which of two equally strong streams of strokes is the beat, the down-strums or the
    /// up-strums and shaker between them, is told by the low band: the bass drum and the bass
    /// notes fall on the beats (M. Goto, "An audio-based real-time beat tracking system for music
    /// with or without drum-sounds", JNMR 30(2), 2001, sec. 3.2, where the bass-drum onsets mark
    /// the beat positions). The tempo does not need this lean, and it changes the chosen octave
    /// on real songs (docs/analyses/rhythm.md "Beat phase under re-encoding"); a legato texture
    /// (`impulsiveShare` 0), whose low band is a bass voice's slow note changes, gets none.
    func withLowBand(_ curve: [Float], onset: OnsetFeatures, impulsiveShare: Float) -> [Float] {
        let weight = configuration.beats.lowBandTrackingWeight * impulsiveShare
        guard weight > 0, weight.isFinite, onset.lowStrength.count == curve.count else { return curve }
        var out = curve
        for i in out.indices { out[i] += weight * onset.lowStrength[i] }
        return out
    }

    /// `curve` mixed with `other` (of the same length) on `curve`'s scale:
    /// `(1 − w) · curve + w · k · other` with `w = min(1, share)` and `k` the ratio of their means,
    /// or `scaleWithoutCurve` when `curve`'s mean is not positive; a non-finite value of `other`
    /// counts as 0. `nil` when the lengths differ, `other`'s mean is not positive, or `curve`'s
    /// mean is not positive and there is no `scaleWithoutCurve`.
    static func meanMatchedMix(_ curve: [Float], with other: [Float], share: Float, scaleWithoutCurve: Float? = nil) -> [Float]? {
        guard !curve.isEmpty, other.count == curve.count else { return nil }
        let meanCurve = curve.reduce(0, +) / Float(curve.count)
        let meanOther = other.reduce(0, +) / Float(other.count)
        guard meanOther > 0, let k = meanCurve > 0 ? meanCurve / meanOther : scaleWithoutCurve else { return nil }
        let w = min(1, share)
        var out = curve
        for i in out.indices { out[i] = (1 - w) * curve[i] + w * k * (other[i].isFinite ? other[i] : 0) }
        return out
    }

    /// `curve` mixed with the harmonic change (``harmonicChange(_:)``, `harmonicRate` values per
    /// second) resampled to its frames at `frameRate`, means matched, the harmonic change at
    /// ``Configuration/BeatSettings/harmonicChangeBeatShare``: the activation of an input whose
    /// pulse is in its changes of pitch and not in its onsets (``pulseThresholds(_:)``), as in
    /// pitch-based onset detection for soft attacks (Collins 2005; Holzapfel et al. 2010), each
    /// frame reading the change at its ``harmonicChangePosition(ofFrame:frameRate:harmonicRate:)``.
    /// `curve` unchanged when there is no harmonic change.
    func withHarmonicChange(_ curve: [Float], harmonicChange change: [Float], harmonicRate: Double, frameRate: Double) -> [Float] {
        let share = configuration.beats.harmonicChangeBeatShare
        guard share > 0, harmonicRate > 0, frameRate > 0, change.count > 1, !curve.isEmpty else { return curve }
        var resampled = [Float](repeating: 0, count: curve.count)
        for i in resampled.indices {
            let x = harmonicChangePosition(ofFrame: i, frameRate: frameRate, harmonicRate: harmonicRate)
            let b = Int(x.rounded(.down))
            guard b >= 0, b + 1 < change.count else { continue }
            let f = Float(x - Double(b))
            resampled[i] = change[b] * (1 - f) + change[b + 1] * f
        }
        // Without onsets at all, the harmonic change as it is (on the curve's scale when it has one).
        return Self.meanMatchedMix(curve, with: resampled, share: share, scaleWithoutCurve: 1) ?? curve
    }

    /// The fractional index into ``harmonicChange(_:)`` (`harmonicRate` values per second) that
    /// belongs to onset frame `frame` at `frameRate`. Value `b` compares the blocks before block
    /// `b` with those from it on, so it belongs to the start of block `b`, half a block before
    /// the block's centre; a frame at time `t` therefore reads index `t · harmonicRate + 0.5`.
    func harmonicChangePosition(ofFrame frame: Int, frameRate: Double, harmonicRate: Double) -> Double {
        Double(frame) / frameRate * harmonicRate + 0.5
    }

    /// Where the texture lies between legato (0) and impulsive (1): the ``impulsiveness(onset:curve:)``
    /// of the input placed linearly in ``Configuration/BeatSettings/impulsiveTexture``.
    func impulsiveShare(onset: OnsetFeatures, curve: [Float]) -> Float {
        let range = configuration.beats.impulsiveTexture
        let texture = impulsiveness(onset: onset, curve: curve)
        let place =
            range.upperBound > range.lowerBound
            ? (texture - range.lowerBound) / (range.upperBound - range.lowerBound)
            : (texture >= range.lowerBound ? 1 : 0)
        return min(1, max(0, place))
    }

    /// How impulsive the texture is: the median, over the salient onset peaks of `curve`, of the
    /// largest new-sound share (``OnsetFeatures/relativeFlux``) within 50 ms of the peak, in
    /// `0 ... 1`. A drum hit or a struck chord replaces much of the spectrum at once (0.3-0.6); a
    /// bowed, blown or sung note change adds a little to what sounds on (0.1-0.2). Peaks are local
    /// maxima over ±50 ms above the mean over ±0.5 s and above 10 % of the 95th-percentile peak.
    func impulsiveness(onset: OnsetFeatures, curve: [Float]) -> Float {
        let rel = onset.relativeFlux
        let n = curve.count
        guard rel.count == n, n > 2, onset.frameRate > 0 else { return 0 }
        let merge = max(1, Int((0.05 * onset.frameRate).rounded()))
        let half = max(1, Int((0.5 * onset.frameRate).rounded()))
        let local = Smoothing.movingAverage(curve, half: half)
        let peaks = PeakPicking.localMaxima(curve, radius: merge).filter { curve[$0] >= local[$0] }
        guard let reference = Smoothing.quantile(peaks.map { curve[$0] }, 0.95), reference > 0 else { return 0 }
        let shares = peaks.filter { curve[$0] >= 0.1 * reference }.map { PeakPicking.windowMaximum(rel, around: $0, radius: merge) }
        return Smoothing.quantile(shares, 0.5) ?? 0
    }

    /// Maps the onset curve to an activation in `(0, 1)`: the curve relative to a moving
    /// reference level (the local mean over `activationWindowSeconds`), scaled and clipped below
    /// at the texture's floor (``activationFloor(impulsiveShare:)``).
    func makeActivation(_ curve: [Float], frameRate: Double, impulsiveShare: Float) -> [Float] {
        let n = curve.count
        let half = max(1, Int(configuration.beats.activationWindowSeconds * frameRate / 2))
        // Prefix sums for the moving mean.
        var prefix = [Double](repeating: 0, count: n + 1)
        for i in 0..<n { prefix[i + 1] = prefix[i] + Double(curve[i]) }
        let globalMean = prefix[n] / Double(max(1, n))
        let floor = activationFloor(impulsiveShare: impulsiveShare)
        var out = [Float](repeating: Float(floor), count: n)
        for i in 0..<n {
            let lo = max(0, i - half), hi = min(n, i + half + 1)
            let mean = (prefix[hi] - prefix[lo]) / Double(hi - lo)
            let ref = 4 * max(mean, 0.25 * globalMean, 1e-6)
            let a = configuration.beats.activationScale * Double(curve[i]) / ref
            out[i] = Float(min(0.95, max(floor, a)))
        }
        return out
    }

    /// The activation of a frame without an onset: ``Configuration/BeatSettings/activationFloor``
    /// (neutral between beat and non-beat states) in a legato texture, down to
    /// ``Configuration/BeatSettings/impulsiveActivationFloor`` in an impulsive one, linear in the
    /// texture's `impulsiveShare` (``impulsiveShare(onset:curve:)``).
    ///
    /// Krebs, Böck & Widmer's observation model (2015, sec. 2.4) reads the activation as the
    /// probability of a beat, which is low between beats. The onset curve is not: at a neutral
    /// floor a beat on a silent frame costs nothing and a beat on an onset gains, so in a dense
    /// figuration (semiquavers under a rubato crotchet) the decoder gains by beating faster than
    /// the music, landing on whichever onsets come. Plucked, struck and drummed notes each have an
    /// onset, so there a frame without one is evidence against a beat; bowed, blown and sung
    /// beats may fall on held notes, so in a legato texture the floor stays neutral.
    func activationFloor(impulsiveShare: Float) -> Double {
        Self.byTexture(legato: configuration.beats.activationFloor, impulsive: configuration.beats.impulsiveActivationFloor, impulsiveShare: impulsiveShare)
    }

    /// A setting that follows the texture: `legato` in a legato texture (`impulsiveShare` 0),
    /// `impulsive` in an impulsive one (1), linear between (the share clamped to `0 ... 1`).
    static func byTexture(legato: Double, impulsive: Double, impulsiveShare: Float) -> Double {
        let share = Double(min(1, max(0, impulsiveShare)))
        return legato + share * (impulsive - legato)
    }
}
