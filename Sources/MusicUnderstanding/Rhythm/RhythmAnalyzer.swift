import Foundation

/// Beat tracking, tempo and downbeats from the shared onset features.
///
/// Pipeline (each step cites its method in its own type):
/// 1. `TempoEstimator`: global tempo from the averaged autocorrelation of the onset strength
///    with a perceptual tempo prior (Ellis 2007; Klapuri et al. 2006); a weak periodicity peak
///    (silence, noise) gives no beats at all.
/// 2. `BeatTracker`: HMM over beat period × beat position (Krebs, Böck & Widmer 2015) around
///    the global tempo, so beats follow tempo changes without drifting; each beat is then moved
///    to the onset peak nearby with parabolic interpolation (sub-frame precision).
/// 3. `DownbeatTracker`: meter (3 or 4) and bar phase from beat-synchronous harmonic change,
///    low-band onsets and accents (Durand et al. 2015), decoded with a bar-position Viterbi.
public struct RhythmAnalyzer: Sendable {
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
        /// Weight of the autocorrelation at twice the period in the tempo score (default 0.5).
        public var harmonic2: Double = 0.5
        /// Weight of the autocorrelation at three times the period in the tempo score
        /// (default 0.5: the measure lengths of duple, triple and quadruple meter count alike;
        /// the evaluation's tempo rows are flat for equal weights from 0.5 to 0.6).
        public var harmonic3: Double = 0.5
        /// Weight of the harmonic-change periodicity in the tempo score (default 0.5).
        public var harmonicChangeWeight: Double = 0.5
        /// Chroma blocks on each side compared by the harmonic-change curve (default 2, about
        /// 93 ms: the shared HPCP analyses one STFT frame per 46 ms block, so two blocks give the
        /// smoothing one summed block gave; much wider contexts made half-tempo chord rhythms of
        /// pop songs win). Checked on both halves of the public set: every rhythm row at or above
        /// the semitone-chroma version.
        public var harmonicContextBlocks: Int = 2
        /// Weight of the autocorrelation at four times the period in the tempo score
        /// (default 0.5).
        public var harmonic4: Double = 0.5
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

        /// The default configuration.
        public init() {}
    }

    /// The settings in use.
    public var configuration: Configuration

    /// Creates the analyzer.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Analyses the features of one input.
    public func analyze(_ features: SharedFeatures) -> RhythmResult {
        let empty = RhythmResult(beats: [], bars: [], beatsPerMinute: nil)
        guard let onset = features.onset, onset.count > 0, onset.frameRate > 0 else { return empty }
        // Harmonic change comes from the one shared chroma (the HPCP at its block rate).
        let harmony = features.chroma?.blockFeature
        let fps = onset.frameRate
        // Beat-tracking curve: broadband plus low-band flux.
        var curve = onset.strength
        if onset.lowStrength.count == curve.count, configuration.lowBandBeatWeight != 0 {
            for i in curve.indices { curve[i] += configuration.lowBandBeatWeight * onset.lowStrength[i] }
        }
        guard curve.allSatisfy({ $0.isFinite }) else { return empty }
        // Clip isolated outliers (the first onset after silence is exaggerated by the adaptive
        // whitening) so that they do not dominate the local reference and the periodicity.
        if configuration.clipPercentile < 1, curve.count > 1 {
            let sorted = curve.sorted()
            let ceiling = sorted[Int(Double(sorted.count - 1) * max(0, configuration.clipPercentile))]
            if ceiling > 0 { for i in curve.indices where curve[i] > ceiling { curve[i] = ceiling } }
        }
        // Tempo curve: the beat-tracking curve with the high band down-weighted.
        var tempoCurve = curve
        if onset.highStrength.count == curve.count, configuration.highBandTempoWeight != 1 {
            let drop = 1 - configuration.highBandTempoWeight
            for i in tempoCurve.indices { tempoCurve[i] = max(0, tempoCurve[i] - drop * onset.highStrength[i]) }
        }
        let estimator = TempoEstimator(configuration: configuration)
        guard
            var tempo = estimator.estimate(
                tempoCurve, frameRate: fps, harmonicChange: harmonicChange(harmony),
                harmonicRate: harmony?.frameRate ?? fps),
            tempo.salience * Double(curve.count).squareRoot() >= configuration.minimumSalience
        else { return empty }
        // The texture, from legato (0) to impulsive (1), chooses the activation and how onsets are placed.
        let impulsive = impulsiveShare(onset: onset, curve: curve)
        let activation = makeActivation(beatCurve(curve, onset: onset, impulsiveShare: impulsive), frameRate: fps)
        let tracker = BeatTracker(configuration: configuration)
        // The silence level of the input, shared by the silent-beat removal and the last bar.
        let silence = silenceThreshold(onset.energy)
        /// Beats tracked around `period`, trimmed to the music's activity and without silent beats,
        /// with the radius of their beat-state window.
        func trackBeats(around period: Double) -> (frames: [Int], radius: Int) {
            let minPeriod = Int((period / configuration.tempoRange).rounded(.down))
            let maxPeriod = Int((period * configuration.tempoRange).rounded(.up))
            var frames = tracker.track(activation, minPeriod: minPeriod, maxPeriod: maxPeriod, centrePeriod: period)
            // The decoder may put a beat anywhere in the beat-state window (±τ/λ positions), so the
            // onset support of a beat is looked for in that window when trimming.
            let radius = max(configuration.refinementRadius, Int((period / configuration.observationLambda).rounded()))
            frames = trimToActivity(frames, curve: curve, radius: radius)
            frames = removeSilentBeats(frames, energy: onset.energy, radius: radius, threshold: silence)
            return (frames, radius)
        }
        var (beatFrames, radius) = trackBeats(around: tempo.period)
        // The level at half the period, when its beats are the more salient to a listener.
        if configuration.adjacentLevelSalience,
            let faster = fasterLevel(
                of: tempo, beats: beatFrames, relativeFlux: onset.relativeFlux, radius: radius,
                frameRate: fps, estimator: estimator)
        {
            let retracked = trackBeats(around: faster.period)
            if retracked.frames.count >= 2 { tempo = faster; (beatFrames, radius) = retracked }
        }
        // A pulse needs new sound on the beats, not only periodicity: the median over the beats
        // of the relative flux near each must reach `minimumNewSound`.
        guard beatFrames.count >= 2, newSound(at: beatFrames, onset: onset, radius: radius) >= configuration.minimumNewSound
        else { return empty }
        // Each beat moves to the onset peak inside its beat-state window: the decoder scores every
        // placement of the window over a peak alike, so the decoded beat may be up to τ / λ frames
        // off it (madmom's `correct` step of the DBN beat tracker does the same).
        let clusterSeconds = configuration.onsetClusterSeconds * Double(1 - impulsive)
        let onsetTimes = beatFrames.map {
            max(0, refine($0, curve: curve, radius: radius, frameRate: fps, clusterSeconds: clusterSeconds) / fps + configuration.latency)
        }
        // Each beat's onset peak weighs its time in the smoothing: a clear onset places a beat
        // more precisely than a faint one.
        let onsetPeaks = beatFrames.map { f -> Double in
            let p = PeakPicking.largest(curve, near: f, radius: radius)
            return p >= 0 && p < curve.count ? Double(curve[p]) : 0
        }
        var beatTimes = smoothBeatTimes(onsetTimes, weights: onsetPeaks)
        let ibi = medianInterval(beatTimes)
        let bpm: Float? = ibi > 0 ? Float(60 / ibi) : nil
        // The tempo's octave alternatives, with the estimator's confidences, at the beats' tempo.
        var candidates: [TempoCandidate] = []
        if let bpm, let chosen = tempo.candidates.first {
            candidates = tempo.candidates.map { c in
                // Exact octaves of the beats' tempo (the periodicity peaks are only frame-exact).
                let octave = pow(2, log2(c.beatsPerMinute / chosen.beatsPerMinute).rounded())
                return TempoCandidate(beatsPerMinute: Double(bpm) * octave, confidence: c.confidence)
            }
        }
        var bars: [Double] = []
        var beatsPerBar: Int?
        let downbeats = DownbeatTracker(configuration: configuration)
        let salience = downbeats.salience(beatFrames: beatFrames, onset: onset, harmony: harmony)
        if let decoded = downbeats.decode(salience) {
            bars = decoded.downbeatIndices.map { beatTimes[$0] }
            beatsPerBar = decoded.beatsPerBar
            if configuration.completesLastBar, let last = decoded.downbeatIndices.last {
                completeLastBar(
                    &beatTimes, frames: &beatFrames, lastDownbeat: last, beatsPerBar: decoded.beatsPerBar,
                    energy: onset.energy, silence: silence, frameRate: fps, radius: radius)
            }
        }
        var result = RhythmResult(
            beats: beatTimes, bars: bars, beatsPerMinute: bpm,
            beatsPerBar: bars.isEmpty ? nil : beatsPerBar, tempoCandidates: candidates)
        if let range = configuration.foldedTempoRange {
            result = fold(result, into: range, beatFrames: beatFrames, curve: curve, radius: radius)
        }
        if let bpm = result.beatsPerMinute {
            // The reported tempo first (its octave neighbour, when folded).
            let reported = Double(bpm)
            if let i = result.tempoCandidates?.firstIndex(where: { abs($0.beatsPerMinute / reported - 1) < 0.02 }) {
                let c = result.tempoCandidates?.remove(at: i)
                if let c { result.tempoCandidates?.insert(TempoCandidate(beatsPerMinute: reported, confidence: c.confidence), at: 0) }
            } else {
                result.tempoCandidates?.insert(TempoCandidate(beatsPerMinute: reported, confidence: 0), at: 0)
            }
        } else {
            result.tempoCandidates = nil
        }
        return result
    }

    /// Folds the beat grid by octaves into `range` (DJ software's BPM range): while the tempo is
    /// above it, every other beat is kept (the phase holding the downbeats, or with the stronger
    /// onsets when there are none); while below it, a beat is added halfway between each two.
    /// Downbeats stay where they are and so does `beatsPerBar`, the meter as heard: folding picks
    /// the tempo octave DJ software shows, the bars do not change (an odd meter cannot be halved:
    /// its bars stay, not all on beats, with `beatsPerBar` `nil`).
    func fold(
        _ result: RhythmResult, into range: ClosedRange<Double>, beatFrames: [Int], curve: [Float],
        radius: Int
    ) -> RhythmResult {
        var out = result
        var frames = beatFrames
        var steps = 0
        while steps < 3, out.beats.count >= 2, let bpm = out.beatsPerMinute.map(Double.init) {
            steps += 1
            if bpm > range.upperBound, out.beats.count >= 4 {
                let downbeatIndices = out.bars.compactMap { bar in out.beats.firstIndex(of: bar) }
                let phase: Int
                if let first = downbeatIndices.first, downbeatIndices.allSatisfy({ ($0 - first) % 2 == 0 }) {
                    phase = first % 2
                } else {
                    phase = strongerPhase(frames, curve: curve, radius: radius)
                }
                let keep = out.beats.indices.filter { $0 % 2 == phase }
                frames = keep.map { frames[$0] }
                out.beats = keep.map { out.beats[$0] }
                if !downbeatIndices.allSatisfy({ $0 % 2 == phase }) || out.beatsPerBar.map({ $0 % 2 != 0 }) == true {
                    out.beatsPerBar = nil
                }
            } else if bpm < range.lowerBound {
                var newFrames: [Int] = [], newBeats: [Double] = []
                for i in out.beats.indices {
                    newFrames.append(frames[i]); newBeats.append(out.beats[i])
                    if i + 1 < out.beats.count {
                        newFrames.append((frames[i] + frames[i + 1]) / 2)
                        newBeats.append((out.beats[i] + out.beats[i + 1]) / 2)
                    }
                }
                frames = newFrames
                out.beats = newBeats
            } else {
                break
            }
            let ibi = medianInterval(out.beats)
            out.beatsPerMinute = ibi > 0 ? Float(60 / ibi) : nil
        }
        return out
    }

    /// The metrical level at half the period of `tempo` when it is the more salient of the two
    /// adjacent levels to a listener, else `nil` (see ``Configuration/adjacentLevelSalience``).
    ///
    /// The salience of a level is its resonance (the tempo prior, ``TempoEstimator/resonance(period:frameRate:)``)
    /// times the mean accent of its beats (pulse salience as period salience × how strongly events
    /// mark the pulse's beats: Parncutt 1994, "A perceptual model of pulse salience and metrical
    /// accent in musical rhythms", Music Perception 11(4); the tapped level follows the relative
    /// salience of adjacent levels and a resonance curve near 120 BPM: McKinney & Moelants 2006,
    /// "Ambiguity in tempo perception", Music Perception 24(2)). A beat's accent is the largest
    /// relative flux (``OnsetFeatures/relativeFlux``, the share of the unwhitened spectrum that is
    /// new) within `radius` frames of it: loudness-relative, so a quiet hi-hat under a sustained
    /// texture adds little and a kick or a chord much. The faster level's beats are the tracked
    /// beats and the midpoints between them, so with `on` and `mid` the mean accents of the
    /// two, the faster level wins when `resonance(τ/2) / resonance(τ) × (on + mid) / (2 · on) ≥ 1`.
    /// Only where the faster level is nearer the preferred tempo (the current one slower than
    /// ``Configuration/preferredBPM`` / √2) and not faster than ``Configuration/maximumBeatBPM``,
    /// with at least 8 beats. Its candidates put the faster level first (with the confidences the
    /// estimator gave them).
    func fasterLevel(
        of tempo: TempoEstimate, beats: [Int], relativeFlux rel: [Float], radius: Int,
        frameRate: Double, estimator: TempoEstimator
    ) -> TempoEstimate? {
        let period = tempo.period, half = tempo.period / 2
        guard beats.count >= 8, !rel.isEmpty, half > 0, 60 * frameRate / half <= configuration.maximumBeatBPM else { return nil }
        let gain = estimator.resonance(period: half, frameRate: frameRate) / max(1e-12, estimator.resonance(period: period, frameRate: frameRate))
        guard gain > 1 else { return nil }
        func accent(at frame: Int) -> Double { Double(PeakPicking.windowMaximum(rel, around: frame, radius: radius)) }
        var on = 0.0, mid = 0.0
        for i in 0..<(beats.count - 1) {
            on += accent(at: beats[i])
            mid += accent(at: (beats[i] + beats[i + 1]) / 2)
        }
        guard on > 0, gain * (on + mid) / (2 * on) >= 1 else { return nil }
        var faster = tempo
        faster.period = half
        faster.beatsPerMinute = 2 * tempo.beatsPerMinute
        if let i = faster.candidates.firstIndex(where: { abs($0.beatsPerMinute / faster.beatsPerMinute - 1) < 0.1 }) {
            let c = faster.candidates.remove(at: i)
            faster.candidates.insert(c, at: 0)
        } else {
            faster.candidates.insert(TempoCandidate(beatsPerMinute: faster.beatsPerMinute, confidence: 0), at: 0)
        }
        return faster
    }

    /// 0 or 1: the parity of the beats with the larger summed onset peaks.
    func strongerPhase(_ beats: [Int], curve: [Float], radius: Int) -> Int {
        var sums: [Float] = [0, 0]
        for (i, f) in beats.enumerated() {
            let p = PeakPicking.largest(curve, near: f, radius: radius)
            if p >= 0, p < curve.count { sums[i % 2] += curve[p] }
        }
        return sums[1] > sums[0] ? 1 : 0
    }

    /// Median inter-beat interval, each interval averaged over up to 4 beats (sub-frame
    /// resolution); 0 with fewer than 2 beats.
    func medianInterval(_ beatTimes: [Double]) -> Double {
        guard beatTimes.count >= 2 else { return 0 }
        var spans: [Double] = []
        let step = min(4, beatTimes.count - 1)
        for i in 0..<(beatTimes.count - step) { spans.append((beatTimes[i + step] - beatTimes[i]) / Double(step)) }
        return Smoothing.median(spans) ?? 0
    }

    /// Places each beat by the onsets of its neighbours: a beat is a regular pulse that a
    /// listener infers from many onsets, and the onset of one note (a slow organ or string
    /// attack, a voice that speaks late) is a noisy observation of it. Each time becomes the value
    /// at its index of a locally weighted robust linear regression of the onset times on the beat
    /// index over ±``Configuration/beatSmoothingBeats`` beats: LOWESS (Cleveland 1979, "Robust
    /// locally weighted regression and smoothing scatterplots", JASA 74, sec. 2: tricube
    /// distance weights, a local line, two bisquare robustness iterations with residuals scaled by
    /// 6 × their median), with each observation also weighted by its onset peak, `weights`,
    /// relative to the median peak: the measurement precision of the Kalman-filter view of beat
    /// tracking (Cemgil, Kappen, Desain & Honing 2001, "On tempo tracking: tempogram
    /// representation and Kalman filtering", sec. 4). A local line follows gradual tempo change;
    /// a gap (an interval over 1.5 × the median, where silent beats were removed) starts a new
    /// run, smoothed on its own. Steady clicks are unchanged (their onsets already lie on a line).
    func smoothBeatTimes(_ times: [Double], weights: [Double]) -> [Double] {
        let k = configuration.beatSmoothingBeats
        guard k > 0, times.count >= 3, weights.count == times.count else { return times }
        var intervals: [Double] = []
        for i in 1..<times.count { intervals.append(times[i] - times[i - 1]) }
        let medianInterval = Smoothing.median(intervals) ?? 0
        guard medianInterval > 0 else { return times }
        let sortedWeights = weights.sorted()
        let medianWeight = sortedWeights[sortedWeights.count / 2]
        let precision = weights.map { w in medianWeight > 0 ? min(10, max(0.1, w / medianWeight)) : 1 }
        var out = times
        var start = 0
        while start < times.count {
            var end = start + 1
            while end < times.count, times[end] - times[end - 1] <= 1.5 * medianInterval { end += 1 }
            if end - start >= 3 {
                let run = Array(times[start..<end])
                let fit = lowess(run, precision: Array(precision[start..<end]), halfWidth: k)
                for i in 0..<run.count { out[start + i] = max(0, fit[i]) }
            }
            start = end
        }
        // The order of the beats is kept (a fit can only cross its neighbour at a far outlier).
        for i in 1..<out.count where out[i] <= out[i - 1] { out[i] = max(times[i], out[i - 1] + 1e-3) }
        return out
    }

    /// Appends beats at the period of the last 4 beats until the bar that begins at beat index
    /// `lastDownbeat` holds `beatsPerBar` beats, stopping at the first that would fall in silence
    /// (no frame within `radius` at or above `silence`, ``silenceThreshold(_:)``) or past the end of the input (see ``Configuration/completesLastBar``).
    func completeLastBar(
        _ times: inout [Double], frames: inout [Int], lastDownbeat: Int, beatsPerBar: Int,
        energy: [Float], silence: Float?, frameRate: Double, radius: Int
    ) {
        let after = times.count - 1 - lastDownbeat
        guard beatsPerBar >= 2, after >= 0, after < beatsPerBar - 1, times.count >= 3, !energy.isEmpty else { return }
        let step = min(4, times.count - 1)
        let period = (times[times.count - 1] - times[times.count - 1 - step]) / Double(step)
        guard period > 0 else { return }
        guard let threshold = silence else { return }
        for _ in 0..<(beatsPerBar - 1 - after) {
            guard let lastTime = times.last else { return }
            let t = lastTime + period
            let f = Int((t * frameRate).rounded())
            guard f + radius < energy.count, sounds(at: f, energy: energy, threshold: threshold, radius: radius) else { return }
            times.append(t)
            frames.append(f)
        }
    }

    /// LOWESS of `y` on its index (see ``smoothBeatTimes(_:weights:)``).
    private func lowess(_ y: [Double], precision: [Double], halfWidth k: Int) -> [Double] {
        let n = y.count
        var robustness = [Double](repeating: 1, count: n)
        var fit = y
        for iteration in 0...2 {
            for i in 0..<n {
                let lo = max(0, i - k), hi = min(n - 1, i + k)
                var s0 = 0.0, s1 = 0.0, s2 = 0.0, t0 = 0.0, t1 = 0.0
                for j in lo...hi {
                    let x = Double(j - i)
                    let d = abs(x) / Double(k + 1)
                    let tricube = pow(1 - d * d * d, 3)
                    let w = tricube * robustness[j] * precision[j]
                    s0 += w; s1 += w * x; s2 += w * x * x; t0 += w * y[j]; t1 += w * x * y[j]
                }
                let det = s0 * s2 - s1 * s1
                fit[i] = det > 1e-9 * max(1, s0 * s0) ? (s2 * t0 - s1 * t1) / det : y[i]
            }
            guard iteration < 2 else { break }
            let residuals = (0..<n).map { y[$0] - fit[$0] }
            let scale = 6 * max(1e-4, residuals.map(abs).sorted()[n / 2])
            robustness = residuals.map { r in
                let u = r / scale
                return abs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0
            }
        }
        return fit
    }

    /// Median over `beats` of the largest relative flux within `radius` frames of each beat (1
    /// when the features carry no relative flux, as hand-made test features may not).
    func newSound(at beats: [Int], onset: OnsetFeatures, radius: Int) -> Double {
        let rel = onset.relativeFlux
        guard rel.count == onset.count, !rel.isEmpty, !beats.isEmpty else { return 1 }
        return Double(Smoothing.median(beats.map { PeakPicking.windowMaximum(rel, around: $0, radius: radius) }) ?? 0)
    }

    /// Harmonic-change curve at the chroma block rate: at each block, the half-wave rectified
    /// difference between the L1-normalised mean chroma of the next and of the previous
    /// `harmonicContextBlocks` blocks (a chord-change detection function after Harte, Sandler &
    /// Gasser 2006, whose smoothing ignores note-level arpeggiation).
    func harmonicChange(_ harmony: FrameFeature?) -> [Float] {
        guard let harmony, harmony.dimension == 12 else { return [] }
        let chroma = harmony.values
        let blocks = chroma.count / 12
        let w = max(1, configuration.harmonicContextBlocks)
        guard blocks > 2 * w, configuration.harmonicChangeWeight > 0 else { return [] }
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
    /// linear onset strength (means matched), by ``Configuration/linearFluxBeatShare`` times the
    /// texture's place in ``Configuration/impulsiveTexture`` (`impulsiveShare`, ``impulsiveShare(onset:curve:)``).
    func beatCurve(_ curve: [Float], onset: OnsetFeatures, impulsiveShare: Float) -> [Float] {
        let linear = onset.linearStrength
        guard configuration.linearFluxBeatShare > 0, configuration.linearFluxBeatShare.isFinite,
            linear.count == curve.count, !curve.isEmpty
        else { return curve }
        let share = configuration.linearFluxBeatShare * impulsiveShare
        guard share > 0 else { return curve }
        let meanCurve = curve.reduce(0, +) / Float(curve.count)
        let meanLinear = linear.reduce(0, +) / Float(linear.count)
        guard meanLinear > 0, meanCurve > 0 else { return curve }
        let k = meanCurve / meanLinear
        let w = min(1, share)
        var out = curve
        for i in out.indices { out[i] = (1 - w) * curve[i] + w * k * (linear[i].isFinite ? linear[i] : 0) }
        return out
    }

    /// Where the texture lies between legato (0) and impulsive (1): the ``impulsiveness(onset:curve:)``
    /// of the input placed linearly in ``Configuration/impulsiveTexture``.
    func impulsiveShare(onset: OnsetFeatures, curve: [Float]) -> Float {
        let range = configuration.impulsiveTexture
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
    /// reference level (the local mean over `activationWindowSeconds`), scaled and clipped.
    func makeActivation(_ curve: [Float], frameRate: Double) -> [Float] {
        let n = curve.count
        let half = max(1, Int(configuration.activationWindowSeconds * frameRate / 2))
        // Prefix sums for the moving mean.
        var prefix = [Double](repeating: 0, count: n + 1)
        for i in 0..<n { prefix[i + 1] = prefix[i] + Double(curve[i]) }
        let globalMean = prefix[n] / Double(max(1, n))
        var out = [Float](repeating: Float(configuration.activationFloor), count: n)
        let floor = configuration.activationFloor
        for i in 0..<n {
            let lo = max(0, i - half), hi = min(n, i + half + 1)
            let mean = (prefix[hi] - prefix[lo]) / Double(hi - lo)
            let ref = 4 * max(mean, 0.25 * globalMean, 1e-6)
            let a = configuration.activationScale * Double(curve[i]) / ref
            out[i] = Float(min(0.95, max(floor, a)))
        }
        return out
    }

    /// Removes beats in the head and tail where the music has no onsets (silence, a lead-in,
    /// a reverberant or fading end): leading and trailing beats whose onset peak (within
    /// `radius` frames) is below `edgeOnsetRatio` times the median beat onset peak.
    func trimToActivity(_ beats: [Int], curve: [Float], radius: Int) -> [Int] {
        guard !beats.isEmpty, !curve.isEmpty else { return [] }
        let peaks: [Float] = beats.map { f in
            let p = PeakPicking.largest(curve, near: f, radius: max(1, radius))
            return p >= 0 && p < curve.count ? curve[p] : 0
        }
        let median = Smoothing.median(peaks) ?? 0
        guard median > 0 else { return [] }
        let threshold = Float(configuration.edgeOnsetRatio) * median
        guard let first = peaks.firstIndex(where: { $0 >= threshold }),
            let last = peaks.lastIndex(where: { $0 >= threshold })
        else { return [] }
        return Array(beats[first...last])
    }

    /// Removes beats inside silent stretches (a pause between movements): beats where the
    /// frame energy within `radius` frames stays below `threshold`, ``silenceThreshold(_:)`` (`silenceRatio` times the 95th
    /// percentile of the energy; the energy is logarithmic, so 0.25 is about 60 dB down for
    /// music at a normal level); `nil` keeps every beat.
    func removeSilentBeats(_ beats: [Int], energy: [Float], radius: Int, threshold: Float?) -> [Int] {
        guard !beats.isEmpty, let threshold else { return beats }
        return beats.filter { sounds(at: $0, energy: energy, threshold: threshold, radius: radius) }
    }

    /// `silenceRatio` times the 95th percentile of the log frame energy; `nil` without energy,
    /// infinite when the input is digital silence throughout.
    func silenceThreshold(_ energy: [Float]) -> Float? {
        guard !energy.isEmpty else { return nil }
        let sorted = energy.sorted()
        let reference = sorted[(sorted.count - 1) * 95 / 100]
        return reference > 0 ? Float(configuration.silenceRatio) * reference : .infinity
    }

    /// Whether a frame within `radius` of `frame` reaches `threshold` (the music sounds there).
    func sounds(at frame: Int, energy: [Float], threshold: Float, radius: Int) -> Bool {
        let lo = max(0, frame - radius), hi = min(energy.count - 1, frame + radius)
        guard lo <= hi else { return false }
        for i in lo...hi where energy[i] >= threshold { return true }
        return false
    }

    /// Moves a beat to the largest onset peak within `radius` (at least `refinementRadius`) frames, with parabolic
    /// interpolation of the peak; returns the fractional frame. A peak on the first or last frame
    /// (an onset at t = 0) is taken as it is.
    func refine(_ frame: Int, curve: [Float], radius: Int, frameRate: Double, clusterSeconds: Double) -> Double {
        let r = max(configuration.refinementRadius, radius)
        guard r > 0, frame >= 0, frame < curve.count else { return Double(frame) }
        let best = PeakPicking.largest(curve, near: frame, radius: r)
        guard curve[best] > 0 else { return Double(frame) }
        if best == 0 || best == curve.count - 1 { return Double(best) }
        guard curve[best] >= curve[best - 1], curve[best] >= curve[best + 1] else { return Double(frame) }
        let offset = PeakPicking.parabolicOffset(Double(curve[best - 1]), Double(curve[best]), Double(curve[best + 1])) ?? 0
        let peak = Double(best) + max(-0.5, min(0.5, offset))
        // The rising edge: where the curve, walking back from the peak (through its onset
        // cluster of up to `clusterSeconds`: `Configuration.onsetClusterSeconds` already scaled
        // by the texture, 0 for none) to its local minimum
        // (at most 12 frames before the peak in all), crosses `onsetRiseFraction` of the rise; compensated so
        // that an impulse lands on the peak, and never after it.
        if configuration.onsetRiseFraction > 0 {
            var low = best
            // An onset cluster: frames within `clusterSeconds` before the peak that stay at or
            // above `onsetClusterLevel` of it belong to the same onset.
            let span = Int((clusterSeconds * frameRate).rounded())
            let clusterLevel = Float(configuration.onsetClusterLevel) * curve[best]
            while low > 0, best - low < span, curve[low - 1] >= clusterLevel { low -= 1 }
            while low > 0, best - low < 12, curve[low - 1] < curve[low] { low -= 1 }
            if low < best {
                let level = curve[low] + Float(configuration.onsetRiseFraction) * (curve[best] - curve[low])
                var j = low + 1
                while j < best, curve[j] < level { j += 1 }
                let rise = curve[j] - curve[j - 1]
                let f = rise > 0 ? Double((level - curve[j - 1]) / rise) : 1
                return min(peak, Double(j - 1) + max(0, min(1, f)) + configuration.onsetRiseCompensation * frameRate)
            }
        }
        return peak
    }
}
