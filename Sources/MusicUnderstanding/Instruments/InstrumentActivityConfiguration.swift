import Foundation

extension InstrumentActivityAnalyzer {
    /// Settings of instrument activity, with documented defaults.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Mix level below which nothing is present, dB relative to the mix reference `G`
        /// (default −45).
        public var silenceLevel: Float = -45
        /// Absolute mix energy below which nothing is present, dB of normalised power (a
        /// full-scale sine is about +2; default −70, i.e. digital near-silence).
        public var absoluteFloor: Float = -70
        /// Hysteresis on every detector score: a range opens at `onThreshold` dB and closes
        /// below `offThreshold` dB (defaults 0 and −3).
        public var onThreshold: Float = 0
        /// See ``onThreshold``.
        public var offThreshold: Float = -3
        /// Gaps shorter than this are bridged, seconds (default 1).
        public var bridgeSeconds: Double = 1
        /// Ranges shorter than this are dropped, seconds (default 0.5).
        public var minimumDuration: Double = 0.5
        /// Level, dB relative to `G`, that the intensity curve maps to 0 (default −40); 0 dB
        /// maps to 1, linearly in dB in between.
        public var curveFloor: Float = -40
        /// Drum: percussive over harmonic energy (all bands, 0.5 s means) at which drums are
        /// present, dB (default −13: sustained tones and chord changes stay below about −15 dB,
        /// a drum kit under a full mix above about −12 dB).
        public var drumPercussiveRatio: Float = -13
        /// Bass: sustained harmonic energy below 120 Hz (median over ±0.2 s) at which the bass is
        /// present, dB relative to `G` (default −35). The bass must also be steady (that median
        /// within 10 dB of the maximum, which a kick drum's decaying tail is not) and harmonic
        /// below 250 Hz at least as much as percussive.
        public var bassLevel: Float = -35
        /// Other: harmonic energy 250-5000 Hz (less the bass's upper partials: a fifth of the
        /// energy below 250 Hz, at most the energy 120-250 Hz) at which other instruments are present, dB relative to `G` (default −35).
        public var otherLevel: Float = -35
        /// Vocal: residual energy 250-5000 Hz at which a voice-like frame is vocal, dB relative
        /// to `G` (default −24: a voice in the foreground; −20 together with
        /// ``vocalPhraseMotion`` 2.5 on real recordings, docs/analyses/instrument-activity.md).
        public var vocalResidualLevel: Float = -24
        /// Vocal: minimum pitch motion of the partials, cents per 23 ms, median over 1 s
        /// (default 1.5: held instrument notes give under 1, singing 1.5-4).
        public var vocalPitchMotion: Float = 1.5
        /// Vocal: minimum pitch motion of the partials over a longer context, cents per 23 ms,
        /// median over 3 s (default 0: off). A singer's line keeps moving through whole phrases,
        /// while piano, celesta, plucked and orchestral textures move their partials only at note
        /// changes and in short ornaments: the fluctogram (Lehner, Widmer & Sonnleitner, ICASSP
        /// 2014, sec. 3.1) taken over a longer context separates sung frames from those of instrumental pieces better than the 1 s median
        /// (on the real dev set the fluctogram's mean over ±1.5 s has ROC AUC 0.90, the 1 s
        /// median 0.86; the median over ±1.5 s is used, robust to single onsets). 2.5 with
        /// ``vocalResidualLevel`` −20, chosen on half A of the real dev set, halves the share of instrumental recordings read
        /// as vocal and raises the vocal accuracy on both halves, but the generated songs' sung
        /// lines (General MIDI choir and espeak-ng) move less than real singing (median 2.3) and
        /// their vocal F1 falls from 0.865 to 0.36, so it is off by default
        /// (docs/analyses/instrument-activity.md).
        public var vocalPhraseMotion: Float = 0
        /// Vocal: pitch motion (cents per 23 ms, median over 1 s) above which a tonal foreground
        /// counts as vocal through its harmonic energy 250-5000 Hz alone (default 6: vibrato of
        /// ±0.5 semitone at 5.5 Hz gives about 15; instrument notes stay under 2).
        public var vocalVibratoMotion: Float = 6
        /// Vocal: minimum share of tonal subband comparisons (``PitchFluctuationFeatures``), mean
        /// over 1 s (default 0.6: dense noisy or distorted textures, whose "motion" is noise,
        /// stay below).
        public var vocalTonalShare: Float = 0.6
        /// Vocal: maximum residual (less the percussive energy, the drums' share of the residual)
        /// over harmonic energy in 250-5000 Hz, dB (default −2: above it the band is noise-like,
        /// not a voice over instruments).
        public var vocalMaximumResidualRatio: Float = -2
        /// Vocal: minimum vocal variance (``ActivityFrames/vocalVariance``: the variances of
        /// cepstral coefficients 1-5 of the 100-5000 Hz log mel bands over 1 s, summed, bels²;
        /// median over ±0.2 s) of a vocal frame (default 0.8). Singing changes its spectral
        /// envelope with every vowel and consonant; bowed strings and woodwinds hold theirs
        /// through a vibrato (Lehner, Sonnleitner & Widmer, ISMIR 2013, sec. 3.2). Measured: the
        /// sung frames of the generated songs that the pitch cue finds 0.97-1.06 at their 5th
        /// percentile (the two halves), espeak-ng speech alone 13-15, the frames of orchestral game
        /// music the pitch cue reads as vocal 0.66 at the median. It also measures chord changes
        /// and drums (it is computed on the mix), so a vowel held over a steady accompaniment
        /// without drums can fall below it. 0 turns the test off; it is not applied when the
        /// features hold neither mel bands nor MFCCs.
        public var vocalMinimumVariance: Float = 0.8
        /// The defaults.
        public init() {}
    }
}
