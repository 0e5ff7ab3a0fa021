import Foundation

/// The settings of every step of the rhythm chain, one ``RhythmAnalyzer/Configuration`` read by
/// ``RhythmAnalyzer``, ``TempoEstimator``, ``BeatTracker`` and ``DownbeatTracker`` (its JSON keys
/// are the property names).
extension RhythmAnalyzer {
    /// Settings of the rhythm analysis, with documented defaults.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Lowest tempo considered, BPM (default 40).
        public var minimumBPM: Double = 40
        /// Highest tempo considered, BPM (default 240).
        public var maximumBPM: Double = 240
        /// Highest tempo the estimate may choose as the beat, BPM (default 215, the upper bound
        /// of madmom's DBN beat tracker, Böck, Krebs & Widmer 2016; Essentia's RhythmExtractor2013
        /// stops at 208): a pulse faster than that is a subdivision to a listener (its period,
        /// under 280 ms, is below the tactus range, London 2004, ch. 2). Faster levels stay in
        /// `tempoCandidates`, and `foldedTempoRange` can still move the beats up to
        /// ``maximumBPM``. planetblupi's ten MIDI renderings: 8/10 → 9/10 (music003, 240 → 120);
        /// the public set's rhythm rows are unchanged.
        public var maximumBeatBPM: Double = 215
        /// Centre of the log-Gaussian tempo prior, BPM (default 120; Ellis 2007, Moelants &
        /// McKinney 2004).
        public var preferredBPM: Double = 120
        /// Width of the tempo prior, octaves (default 1.5: a broad preference, tempi from 60 to
        /// 180 BPM are all common).
        public var tempoPriorOctaves: Double = 1.5
        /// Autocorrelation window, seconds (default 8).
        public var tempoWindowSeconds: Double = 8
        /// Longest autocorrelation lag, seconds (default 4.5: three periods at 40 BPM).
        public var maximumLagSeconds: Double = 4.5
        /// Minimum pulse salience for beats to be reported: the mean normalised autocorrelation
        /// at the beat period times the square root of the number of frames, i.e. the peak in
        /// units of the standard deviation expected of an unpulsed curve (default 4.3; white,
        /// pink and brown noise give 1.8 to 3.7, music 4.5 and above).
        public var minimumSalience: Double = 4.3
        /// Minimum new sound on the beats for them to be reported: the median over the tracked
        /// beats of the largest relative flux (``OnsetFeatures/relativeFlux``, the share of the
        /// frame's spectral magnitude that is new) within the beat window (default 0.02, 2 %).
        /// The whitened onset curve of a steady tone is periodic (its Hann side-lobes beat with
        /// the frame phase), so periodicity alone gave a 440 Hz sine beats at 86 BPM; on it the
        /// relative flux is 0.00004, on a steady three-note chord 0.008, on soft clicks 40 dB
        /// under a sine 0.028 and on every piece of the public set 0.11 or more.
        public var minimumNewSound: Double = 0.02
        /// Weight of the autocorrelation at twice the period in the tempo score (default 0.5:
        /// twice the period is itself a beat candidate, and at full weight slow ballads with
        /// eighth-note accompaniment read at their eighths).
        public var harmonic2: Double = 0.5
        /// Weight of the autocorrelation at three times the period in the tempo score
        /// (default 1, as the level itself: the bar lengths of triple and quadruple meter
        /// confirm the beat, as in the comb of Davies & Plumbley 2007, sec. III-B, which sums
        /// the first four multiples alike).
        public var harmonic3: Double = 1
        /// Weight of the harmonic-change periodicity in the tempo score (default 0.5).
        public var harmonicChangeWeight: Double = 0.5
        /// Chroma blocks on each side compared by the harmonic-change curve (default 2, about
        /// 93 ms: the shared HPCP analyses one STFT frame per 46 ms block, so two blocks give the
        /// smoothing one summed block gave; much wider contexts made half-tempo chord rhythms of
        /// pop songs win). Checked on both halves of the public set: every rhythm row at or above
        /// the semitone-chroma version.
        public var harmonicContextBlocks: Int = 2
        /// Weight of the autocorrelation at four times the period in the tempo score
        /// (default 1, as ``harmonic3``: a tresillo or dotted-eighth pulse, 4:3 to the beat,
        /// does not divide the bar, so the bar keeps the beat).
        public var harmonic4: Double = 1
        /// Share of the chosen level's autocorrelation that the level at half (or a third of)
        /// its period must reach for the estimate to descend to that faster level, whose
        /// grouping the chosen level then is (default 0.9; the tempo rows of the evaluation are
        /// flat from 0.85 to 0.95).
        public var subdivisionRatio: Double = 0.9
        /// The grouping test keeps the current level when the harmonic-change periodicity at
        /// the faster level is below this share of that at the current level (default 0.5;
        /// 0 turns the test off): chords that change on the beat group a steady stream of
        /// quavers into beats. Public set, tempo Acc1 tonal: half B 0.882 → 0.912, half A
        /// unchanged (0.5 and 0.7 alike).
        public var harmonicGroupingRatio: Double = 0.5
        /// ... and the harmonic change at the current level is at least this periodic (mean
        /// normalised autocorrelation; default 0.1).
        public var harmonicGroupingFloor: Double = 0.1
        /// Whether the grouping test also looks at a third of the period (default true).
        public var tripleGrouping: Bool = true
        /// Whether the grouping test weighs both levels by the tempo prior, as the first choice
        /// does (default true): the faster level must be nearly as salient to a listener
        /// (periodicity × resonance, Parncutt 1994; McKinney & Moelants 2006), not only nearly
        /// as periodic. Accented crotchets at 100 BPM with soft quavers between read 199 BPM
        /// without it (the quaver pulse had 0.90 of the crotchets' periodicity), 99 with it; the
        /// public set is unchanged. Isochronous streams are exempt (their events are the beat).
        public var priorWeightedGrouping: Bool = true
        /// The grouping test keeps the current level when its measure (3 or 4 of its periods)
        /// pulses more strongly than every level the faster one reaches within 4 of its own
        /// periods: the faster level is kept only below this share of that measure's
        /// periodicity (default 0.9, the ``subdivisionRatio``; 0 turns the test off). Common
        /// meters group two to four beats into a bar (London 2004, *Hearing in Time*, ch. 2;
        /// the nested tatum/tactus/measure levels of Klapuri et al. 2006, sec. III), so a bar
        /// that holds 3 or 4 of the current beats would hold 6 or 8 of the faster ones: a
        /// steady quaver ostinato under a clear 4-beat bar is a subdivision even when it is
        /// as periodic as the beat, where a click track, without a bar, stays its own beat.
        /// The same periodicities fit two bars of the faster level (hypermeter), so the test
        /// applies only where the tempo prior prefers the current level. planetblupi's ten MIDI
        /// renderings (tempo from the shipped MIDI): 6/10 → 8/10; the public set's rhythm rows
        /// are unchanged; on 57 further real game tracks the tempo agreement with Essentia is
        /// unchanged (0.544; 0.509 without the prior clause).
        public var measureGroupingRatio: Double = 0.9
        /// Constant added to every beat time, seconds (default 0).
        public var latency: Double = 0
        /// Beat periods tracked, as a factor around the global period: from `period /
        /// tempoRange` to `period * tempoRange` (default 1.8: a tempo swaying 80–120 BPM around
        /// a global estimate of 81 stays inside; 1.4 was the earlier default).
        public var tempoRange: Double = 1.8
        /// Weight κ of the per-beat tempo prior `−κ · log2(τ / τ₀)²` around the global period
        /// `τ₀` (default 5: 0.35 per beat at ±20 %, 0.8 at a 3:4 ratio). The earlier 30 held the
        /// tracker so close to the global tempo that a piece swaying ±20 % (rubato, a live
        /// band) lost half its beats (beat F 0.55 on a synthesised 80–120 BPM sway, 1.0 with 5
        /// and a range of 1.8); madmom's DBN has no such prior at all (Böck, Krebs & Widmer
        /// 2016). Public set beat F tonal, halves A / B: 0.897 / 0.858 → 0.900 / 0.854; songs
        /// and formats unchanged.
        public var periodPriorWeight: Double = 5
        /// Whether the beat tracker decodes in a time base where the global beat period is a whole
        /// number of frames (default true). The state space's periods are whole frames (Krebs,
        /// Böck & Widmer 2015, sec. 2.2), so a steady beat of 35.25 frames can keep its phase
        /// only by switching between the 35- and 36-frame periods, and each switch costs a
        /// tempo change (about `λ / τ` in log probability); where the onsets are faint (legato
        /// organ or strings) the decoder then prefers a constant, wrong period and drifts a
        /// beat in 20 s. The activation is therefore resampled by `round(τ₀) / τ₀` (at most
        /// ±1.5 % for periods of 33 frames and more) before decoding, and the beat frames are
        /// mapped back; see ``BeatTracker/track(_:minPeriod:maxPeriod:centrePeriod:)``. Public
        /// set, tonal halves A / B: beat F 0.934 / 0.898 → 0.936 / 0.922, AMLt 0.961 / 0.913 →
        /// 0.962 / 0.942 (four organ and string chorales at 146–176 BPM from 0.31–0.64 to
        /// 0.58–0.87), downbeat F 0.863 / 0.800 → 0.864 / 0.846; songs and planetblupi unchanged.
        public var decodesAtWholeFramePeriod: Bool = true
        /// Tempo-change sharpness λ of the transition model (default 100, Krebs 2015).
        public var transitionLambda: Double = 100
        /// Largest relative period change from one beat to the next (default 0.2).
        public var maximumPeriodChange: Double = 0.2
        /// Observation λ: the beat states are the first and last `τ / λ` positions (default 16,
        /// Krebs 2015).
        public var observationLambda: Double = 16
        /// Scale of the activation: `a = activationScale * onset / (4 * localMean)` clipped to
        /// `[activationFloor, 0.95]` (default 0.25: an onset at the local mean level gives
        /// `a = 1 / observationLambda`, neutral between beat and non-beat states).
        public var activationScale: Double = 0.25
        /// Smallest activation (default 1/16 = 1 / observationLambda: frames without onsets are
        /// neutral, so the decoder has no bias towards fewer, slower beats).
        public var activationFloor: Double = 0.0625
        /// Window of the local reference level of the onset curve, seconds (default 4).
        public var activationWindowSeconds: Double = 4
        /// Percentile at which the onset curve is clipped before tempo and beat tracking
        /// (default 1: disabled; clipping at 0.99 lost tonal accuracy).
        public var clipPercentile: Double = 1
        /// Weight of the low-band onset curve added to the broadband one for tempo and beat
        /// tracking (default 2: kick and bass mark the beat level more than hi-hats do).
        public var lowBandBeatWeight: Float = 2
        /// Weight of the high-band onsets (above ``OnsetConfiguration/highBandMinimum``, hi-hats,
        /// cymbals, shakers) in the curve whose periodicity chooses the tempo, against 1 for the
        /// rest of the spectrum (default 0.5). The adaptive whitening brings a quiet hi-hat to the
        /// scale of the kick in its own bands; listeners tap the kick and snare level and hear the
        /// hats as its subdivision (percussion weighting: McKinney & Moelants 2006 find the
        /// tapped level follows the low-frequency accents), so their periodicity counts half.
        /// Beat placement still uses the full curve.
        public var highBandTempoWeight: Float = 0.75
        /// Whether the beat steps down to the level at half its period when that level is the more
        /// salient of the two to a listener (default true): salience is the tempo prior's resonance
        /// times the mean accent of a level's beats, an accent being the share of new sound
        /// (``OnsetFeatures/relativeFlux``) at the beat (Parncutt 1994; McKinney & Moelants 2006: the
        /// tapped level follows the relative salience of adjacent levels). The periodicity alone can
        /// prefer a slow level whose half-period pulse is syncopated (planetblupi's music001, notated at
        /// 120 BPM: kicks and snares on 1, 2&, 3, 4& over steady quavers repeat every half note, and the
        /// autocorrelation is 0.84 there against 0.49 at the crotchet), although every crotchet
        /// carries as much new sound as three quarters of a half-note beat. Applies only below
        /// ``preferredBPM`` / √2, where the faster level is the nearer to the preferred tempo, and
        /// never above ``maximumBeatBPM``. planetblupi's ten MIDI renderings: 9/10 → 10/10; no report
        /// of the public set changes (its slow chorales and ballads score at most about 0.85 of the
        /// slow level's salience at the faster level); on 57 further game tracks the tempo agreement
        /// with Essentia stays 0.561 (one track moves to Essentia's octave, one away from it) and the
        /// beat agreement goes 0.609 → 0.612.
        public var adjacentLevelSalience: Bool = true
        /// Least accent of the beats' thirds, as a share of the beats' own, for the level at a
        /// third of the period to replace a slow tracked level as the bars of a fast triple meter
        /// (default 0.4; needs ``adjacentLevelSalience``; see
        /// ``RhythmAnalyzer/tripleLevel(of:beats:relativeFlux:radius:frameRate:estimator:)``).
        /// Synthesised Viennese waltzes at 168-192 BPM read at their bar measure 0.48-0.64 and
        /// slow 12/8 ballads at 56-68 BPM 0.15-0.23 (evidence in docs/analyses/rhythm.md).
        public var tripleLevelAccent: Double = 0.4
        /// Decide the tempo octave by window votes (``OctaveVote``, Davies & Plumbley 2007): the
        /// beats are halved to every other beat (the phase holding the downbeats) when the votes
        /// prefer the double period (default true; evidence in docs/analyses/rhythm.md).
        public var octaveVoting: Bool = true
        /// Period of the largest prior weight of the octave votes' Rayleigh curve, seconds
        /// (default 0.4993: 43 frames at 86.13 fps, the value of Davies & Plumbley 2007 and of
        /// Essentia's `TempoTapDegara`, not tuned here).
        public var octaveVotePeriod: Double = 43 * 512 / 44_100
        /// Beats whose accents vary less than this (coefficient of variation) are an isochronous
        /// stream, their own beat, and are not halved by the octave votes (default 0.2: click
        /// tracks 0.07, the beats of songs 0.5 and above).
        public var isochronousVariation: Double = 0.2
        /// Share of the beat tracker's activation taken from the linear onset strength
        /// (``OnsetFeatures/linearStrength``, scaled to the mean of the whitened curve) in an
        /// impulsive texture, against the whitened SuperFlux (default 0.5; 0 turns it off). See
        /// ``RhythmAnalyzer/beatCurve(_:onset:impulsiveShare:)``.
        public var linearFluxBeatShare: Float = 0.5
        /// Impulsiveness (median new-sound share at the onsets, ``OnsetFeatures/relativeFlux``)
        /// at and below which a texture is legato and the activation is the whitened curve alone,
        /// and at and above which the full ``linearFluxBeatShare`` applies; linear in between
        /// (default `0.2 ... 0.3`: organ, string and choir renderings measure 0.08-0.23, drum kits
        /// and pianos 0.27-0.8).
        public var impulsiveTexture: ClosedRange<Float> = 0.2...0.3
        /// A tempo range the reported tempo is folded into by octaves, as DJ software does with
        /// its BPM range (e.g. `70...140`; default `nil`: the metrical level listeners tap).
        /// The estimate moves to the double or half period until it lies inside, and the beats
        /// follow; the range must span at least an octave (upper ≥ 2 × lower) within
        /// ``minimumBPM``...``maximumBPM`` for every tempo to have a place in it.
        public var foldedTempoRange: ClosedRange<Double>?
        /// Leading and trailing beats with an onset peak below this share of the median beat
        /// onset peak are dropped (default 0.4).
        public var edgeOnsetRatio: Double = 0.4
        /// Beats where the log frame energy stays below this share of its 95th percentile are
        /// dropped as silent (default 0.25).
        public var silenceRatio: Double = 0.25
        /// Radius of the search for the onset peak near each beat, frames (default 2).
        public var refinementRadius: Int = 2
        /// Whether the bar in progress at the last tracked beat is completed while the music still
        /// sounds (default true): a chord held to the end of the song's last bar has no onsets on
        /// its later beats, but the meter, once established, goes on in the listener until the
        /// bar ends (metrical entrainment persists through held notes: Large & Jones 1999, "The
        /// dynamics of attending", sec. 2; London 2004, ch. 1). Beats are added at the last beats'
        /// period up to the bar's end, each only where the frame energy is above the silence
        /// threshold (``silenceRatio``). Public set, beat F songs: 0.994 / 0.996 → 0.997 / 0.998;
        /// tonal 0.938 / 0.899 → 0.934 / 0.899 (a chorale's final fermata suspends the meter, and
        /// its truth stops at the last chord); real recordings, cut mid-music, are unchanged.
        public var completesLastBar: Bool = true
        /// Beats on each side of a beat whose onsets place it (default 4, two 4/4 bars in all;
        /// 0 places each beat on its own onset): every beat time is the value at that beat of a
        /// robust local line through the onset times of its neighbours (see
        /// ``RhythmAnalyzer/smoothBeatTimes(_:weights:)``). Public set, beat F tonal: half A
        /// 0.900 → 0.930 (flat, 0.928 to 0.932, for 2 to 8 beats), half B 0.854 → 0.886; songs
        /// 0.989 / 0.994 → 0.994 / 0.996.
        public var beatSmoothingBeats: Int = 4
        /// Where on the onset peak a beat is placed: 0 at the peak, ρ in (0, 1) where the rising
        /// edge before the peak crosses ρ of the way from the local minimum to the peak (default
        /// 0.05, the start of the rise). A tone is heard to begin when its envelope crosses a
        /// threshold well below its maximum, not at its steepest rise (Vos & Rasch 1981, "The
        /// perceptual onset of musical tones": about 15 dB below), and an onset is "the instant
        /// chosen to mark the start of the transient" (Bello et al. 2005, sec. II), so slow
        /// attacks (organ, strings, choir) are placed earlier than their flux peak, impulsive
        /// ones where they are (with ``onsetRiseCompensation``). Public set, beat F tonal: 0.2
        /// gave half A 0.864 → 0.886 over the peak, 0.05 gives 0.897 / 0.858 against 0.892 /
        /// 0.854 for 0.2; synthesised onsets (scripts/beat-timing.py, median error): clicks
        /// −3.2 ms, impulses −2.2, drums +0.5, plucked +0.1, bowed +5.2 (0.2: −3.2, −2.2, +1.2,
        /// +0.9, +6.1).
        public var onsetRiseFraction: Double = 0.05
        /// Added to a beat placed on the rising edge, seconds (default 0.026): the rising edge of
        /// an impulse's onset peak reaches ``onsetRiseFraction`` (5 %) of the peak about 26 ms
        /// before the peak (the Hann window's leading edge), so clicks and drum hits land on
        /// their physical onset (scripts/beat-timing.py and the click tests measure it).
        public var onsetRiseCompensation: Double = 0.026
        /// How far before its onset peak a beat's onset may begin in a legato texture, seconds
        /// (default 0.1; 0 turns it off). A chord of bowed, blown or organ tones is not one
        /// impulse: its voices enter up to 30–50 ms apart (R. A. Rasch, "Synchronization in
        /// performed ensemble music", Acustica 43, 1979) and each builds up over tens of
        /// milliseconds (J. W. Gordon, "The perceptual attack time of musical tones", JASA 82(1),
        /// 1987), so its onset curve has several peaks, and the decoder's beat window may settle on
        /// a later one. The onset of the beat is the start of the first: walking back from the
        /// peak, frames at or above ``onsetClusterLevel`` of the peak belong to the same onset, up
        /// to this span, and the rising edge (``onsetRiseFraction``) is looked for before them.
        /// Scaled by how legato the texture is (1 − its place in ``impulsiveTexture``), so
        /// drums and struck chords, whose onsets are single peaks, are placed as before. Public
        /// set, tonal halves A / B: beat F 0.936 / 0.922 → 0.969 / 0.956, AMLt 0.962 / 0.942 →
        /// 0.974 / 0.973, downbeat F 0.864 / 0.846 → 0.899 / 0.883; songs unchanged (without the
        /// texture scaling songs lost 0.001); flat for spans of 0.07–0.15 s and levels of 0.1–0.2.
        /// With the whole-frame decoding, beat agreement with Essentia on real recordings 0.742 →
        /// 0.737 (12 realmusic tracks), 0.616 → 0.613 (57 game tracks).
        public var onsetClusterSeconds: Double = 0.1
        /// Share of the onset peak above which the frames before it belong to the same onset
        /// (default 0.2; see ``onsetClusterSeconds``).
        public var onsetClusterLevel: Double = 0.2
        /// Meters (beats per bar) considered (default 3 and 4; values outside 2...16 are
        /// ignored).
        public var meters: [Int] = [3, 4]
        /// Weight of harmonic change in the downbeat salience (default 1).
        public var harmonicWeight: Double = 1
        /// Weight of low-band onsets in the downbeat salience (default 0.7).
        public var lowOnsetWeight: Double = 0.7
        /// Weight of broadband accents in the downbeat salience (default 0.4).
        public var accentWeight: Double = 0.4
        /// Weight of the dynamic stress (mean log energy over the beat) in the downbeat salience
        /// (default 0.5).
        public var loudnessWeight: Double = 0.5
        /// A beat whose robustly standardised loudness is this many robust standard deviations
        /// below the median counts as a rest; the onset and harmonic-change cues of the beat
        /// after it may then only lower the downbeat salience (default 2).
        public var restThreshold: Double = 2
        /// Beats on each side compared for harmonic change (default 2).
        public var harmonicContextBeats: Int = 2
        /// A second span for the harmonic-change cue, beats on each side (default 1; 0 for
        /// none): the bars are decoded with each span and the decoding whose path scores higher
        /// per beat is kept. One beat finds chord changes that fall on the bar line of songs
        /// whose chords last a bar or more; two beats suit chorales, whose chords change on most
        /// beats (docs/analyses/rhythm.md).
        public var alternativeHarmonicContextBeats: Int = 1
        /// Bound on each robustly standardised downbeat cue, in robust standard deviations
        /// (default 3, the usual Hampel outlier limit).
        public var salienceClip: Double = 3
        /// Weight of the downbeat salience at the middle of an even bar (beat 3 of 4/4), relative
        /// to the first beat (default 0.5: one level down the metrical grid halves the accent).
        public var halfBarWeight: Double = 0.5
        /// Scale of the downbeat salience in the bar Viterbi (default 1).
        public var downbeatSharpness: Double = 1
        /// Log-prior penalty per beat for odd meters (3 beats per bar) against even ones (default
        /// 0.1; 4/4 is far more common than 3/4 in Western music).
        public var oddMeterPenalty: Double = 0.1
        /// Probability of a bar re-phasing jump per beat (default 1e-3).
        public var barJumpProbability: Double = 1e-3
        /// Probability of a meter change per beat (default 1e-6).
        public var meterChangeProbability: Double = 1e-6

        /// Beats in the window of each local tempo of ``RhythmResult/tempoCurve`` (default 16: four
        /// 4/4 bars, so a few misplaced beats do not move the window's median interval).
        public var tempoCurveWindowBeats: Int = 16
        /// ``RhythmResult/tempoCurve`` is reported when the local tempo departs from the global one
        /// by more than this share at two successive points (default 0.04, the Acc1 tolerance
        /// within which two tempi count as the same); 0 reports it for every input with beats.
        public var tempoCurveDrift: Double = 0.04

        /// The default configuration.
        public init() {}
    }
}
