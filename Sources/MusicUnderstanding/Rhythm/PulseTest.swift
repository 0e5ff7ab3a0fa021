import Foundation

/// The pulse test of step 2 of the rhythm chain: the global tempo is kept only when the input
/// has a pulse, in its onsets or, for soft attacks, in its changes of harmony; otherwise the
/// input gets no beats (silence, noise, ambient sound; docs/analyses/rhythm.md "When there are
/// no beats").
extension RhythmAnalyzer {
    /// The global tempo (``TempoEstimator``) of `curve`, the tempo-estimation curve
    /// (``tempoEstimationCurve(_:onset:)``), and of the harmonic change `change` (``harmonicChange(_:)``, `harmonicRate` values per
    /// second); `nil` when there is none or its pulse is too weak for beats (silence, noise;
    /// ``pulseThresholds(_:)``): neither the onsets' pulse salience times the square root of the
    /// number of frames reaches `thresholds.onsets`, nor the harmonic change's periodicity at the
    /// tempo times the square root of its number of values reaches `thresholds.harmonicChange`.
    func estimateTempo(
        _ curve: [Float], frameRate fps: Double, harmonicChange change: [Float], harmonicRate: Double,
        estimator: TempoEstimator, thresholds: PulseThresholds
    ) -> TempoEstimate? {
        guard
            let tempo = estimator.estimate(
                curve, frameRate: fps, harmonicChange: change,
                harmonicRate: harmonicRate > 0 ? harmonicRate : fps)
        else { return nil }
        if tempo.salience * Double(curve.count).squareRoot() >= thresholds.onsets { return tempo }
        guard let harmonic = thresholds.harmonicChange,
            tempo.harmonicSalience * Double(change.count).squareRoot() >= harmonic
        else { return nil }
        var fromHarmony = tempo
        fromHarmony.pulseFromHarmonicChange = true
        return fromHarmony
    }

    /// What the pulse of an input must reach for beats (``pulseThresholds(_:)``), each in standard
    /// deviations of an unpulsed curve.
    struct PulseThresholds: Sendable {
        /// The onsets' pulse salience.
        var onsets: Double
        /// The harmonic change's periodicity at the tempo, which is enough on its own; `nil` when
        /// it does not count (an unpitched input, no chroma, or the setting at 0).
        var harmonicChange: Double?
    }

    /// The pulse an input needs for beats.
    ///
    /// **Onsets**: ``Configuration/TempoSettings/minimumSalience``, or
    /// ``Configuration/TempoSettings/unpitchedMinimumSalience`` (when larger) for an unpitched input, one
    /// with a ``ChromaFeatures/harmonicShare`` below ``Configuration/TempoSettings/pitchedShare`` (the
    /// chroma's median-filter test, Fitzgerald 2010).
    /// Noise has no harmonic peaks (0.02-0.095 of its energy pass the test) and, in a few cases
    /// in a hundred, a periodicity above 4.3 by chance (up to 6.3 on 738 white, pink and brown
    /// noises of 5-60 s); music has pitched sound (0.115 and more on the dev set, 0.58 and more on
    /// its MIR-1K clips) or, when it has almost none (drum loops: 0.08-0.15), a strong pulse (9 and
    /// more). Without chroma the input counts as pitched.
    ///
    /// **Harmonic change**, for a pitched input: ``Configuration/TempoSettings/minimumHarmonicSalience``.
    /// Notes that start softly (bowed strings, a legato orchestra) mark the beat by a change of
    /// pitch more than by a burst of energy, so their onsets may pulse weakly while the pitch
    /// content changes on every beat (pitch-based onset detection for such music: Collins 2005,
    /// "Using a pitch detector for onset detection", ISMIR; Holzapfel et al. 2010, "Three
    /// dimensions of pitched instrument onset detection", IEEE TASLP 18(6)).
    func pulseThresholds(_ chroma: ChromaFeatures?) -> PulseThresholds {
        let tempo = configuration.tempo
        let harmonic = tempo.minimumHarmonicSalience > 0 ? tempo.minimumHarmonicSalience : nil
        guard let chroma else { return PulseThresholds(onsets: tempo.minimumSalience, harmonicChange: nil) }
        guard let share = chroma.harmonicShare, share >= tempo.pitchedShare else {
            return PulseThresholds(onsets: max(tempo.minimumSalience, tempo.unpitchedMinimumSalience), harmonicChange: nil)
        }
        return PulseThresholds(onsets: tempo.minimumSalience, harmonicChange: harmonic)
    }
}
