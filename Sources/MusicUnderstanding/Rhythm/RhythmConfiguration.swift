import Foundation

/// The settings of the rhythm chain, one ``RhythmAnalyzer/Configuration`` with a group of settings
/// per step (JSON `rhythm.tempo.…`, `rhythm.beats.…`, …). The flat keys of 0.7 and earlier
/// (`rhythm.minimumBPM`) are still read: ``AnalysisConfiguration`` maps each to its group.
extension RhythmAnalyzer {
    /// Settings of the rhythm analysis, one group per step of the chain, with documented defaults.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Step 1, the onset curves the tempo and the beats follow (`BeatActivation.swift`).
        public var onsets = OnsetSettings()
        /// Step 2, the global tempo (`TempoEstimator`, `Tempo.swift`, gated in `PulseTest.swift`).
        public var tempo = TempoSettings()
        /// Steps 3, 4 and 9, the activation, the beat tracker and the passages out of time (`BeatActivation.swift`, `BeatTracker`, `BeatTrimming.swift`).
        public var beats = BeatSettings()
        /// Steps 5, 8 and 10, the metrical level, the octave votes and the folding (`MetricalLevel.swift`, `OctaveVote.swift`).
        public var level = LevelSettings()
        /// Step 6, each beat placed on its onset (`BeatPlacement.swift`).
        public var placement = PlacementSettings()
        /// Step 7, meter and bar phase (`DownbeatTracker`, `Downbeats.swift`, `Bars.swift`).
        public var downbeats = DownbeatSettings()
        /// Step 11, the tempo over time (`TempoCurve.swift`).
        public var tempoCurve = TempoCurveSettings()

        /// The default configuration.
        public init() {}

        /// Step 1, the onset curves the tempo and the beats follow (`BeatActivation.swift`).
        public struct OnsetSettings: Sendable, Hashable, Codable {
            /// Percentile at which the onset curve is clipped before tempo and beat tracking
            /// (default 1: disabled; clipping at 0.99 lost tonal accuracy).
            public var clipPercentile: Double = 1
            /// Weight of the low-band onset curve added to the broadband one for tempo and beat
            /// tracking (default 2: kick and bass mark the beat level more than hi-hats do).
            public var lowBandBeatWeight: Float = 2
            /// Weight of the high-band onsets (hi-hats, cymbals, shakers) in the curve whose periodicity
            /// chooses the tempo, against 1 for the rest of the spectrum (default 0.75).
            public var highBandTempoWeight: Float = 0.75
            /// Chroma blocks on each side compared by the harmonic-change curve (default 2, about 93 ms).
            public var harmonicContextBlocks: Int = 2

            /// The defaults.
            public init() {}
        }

        /// Step 2, the global tempo (`TempoEstimator`, `Tempo.swift`, gated in `PulseTest.swift`).
        public struct TempoSettings: Sendable, Hashable, Codable {
            /// Lowest tempo considered, BPM (default 40).
            public var minimumBPM: Double = 40
            /// Highest tempo considered, BPM (default 240).
            public var maximumBPM: Double = 240
            /// Highest tempo the estimate may choose as the beat, BPM (default 215, the upper bound of
            /// madmom's DBN beat tracker, Böck, Krebs & Widmer 2016); faster levels stay in `tempoCandidates`.
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
            /// Minimum pulse salience for beats to be reported: the autocorrelation peak in standard
            /// deviations of an unpulsed curve (default 4.3).
            public var minimumSalience: Double = 4.3
            /// Minimum pulse salience of an unpitched input, one with less than ``pitchedShare`` of its
            /// spectral energy in harmonic peaks (default 7.5; noise gives up to 6.3, drum loops 9 and more).
            public var unpitchedMinimumSalience: Double = 7.5
            /// Minimum periodicity of the harmonic change at the tempo, in standard deviations of an
            /// unpulsed curve, that gives a pitched input beats when its onsets pulse less than
            /// ``minimumSalience`` (default 6; 0 turns it off): soft attacks mark the beat by a change of
            /// pitch more than by one of energy.
            public var minimumHarmonicSalience: Double = 6
            /// Share of the spectral energy in the chroma's harmonic peaks below which an input is
            /// unpitched (default 0.1; noise 0.02-0.095, the dev set's music 0.115 and more).
            public var pitchedShare: Double = 0.1
            /// Onset values at the input's start capped at the curve's 99th percentile for a second
            /// tempo estimate when the first fails the pulse test, frames (default 3; 0 turns it off):
            /// a file cut into music starts with an onset of the file, not of the music.
            public var startFrames: Int = 3
            /// Weight of the autocorrelation at twice the period in the tempo score (default 0.5).
            public var harmonic2: Double = 0.5
            /// Weight of the autocorrelation at three times the period in the tempo score (default 1,
            /// as the comb of Davies & Plumbley 2007, sec. III-B).
            public var harmonic3: Double = 1
            /// Weight of the autocorrelation at four times the period in the tempo score (default 1).
            public var harmonic4: Double = 1
            /// Weight of the harmonic-change periodicity in the tempo score (default 0.5).
            public var harmonicChangeWeight: Double = 0.5
            /// Share of the chosen level's autocorrelation the level at half (or a third of) its period
            /// must reach for the estimate to descend to it (default 0.9).
            public var subdivisionRatio: Double = 0.9
            /// The grouping test keeps the current level when the harmonic-change periodicity at the
            /// faster level is below this share of the current level's (default 0.5; 0 turns it off).
            public var harmonicGroupingRatio: Double = 0.5
            /// ... and the harmonic change at the current level is at least this periodic (mean
            /// normalised autocorrelation; default 0.1).
            public var harmonicGroupingFloor: Double = 0.1
            /// Whether the grouping test also looks at a third of the period (default true).
            public var tripleGrouping: Bool = true
            /// Whether the grouping test weighs both levels by the tempo prior, as the first choice does
            /// (default true).
            public var priorWeightedGrouping: Bool = true
            /// The grouping test keeps the current level when its measure (3 or 4 periods) pulses more
            /// than this share more strongly than the faster level's (default 0.9; 0 turns it off).
            public var measureGroupingRatio: Double = 0.9

            /// The defaults.
            public init() {}
        }

        /// Steps 3, 4 and 9, the activation, the beat tracker and the passages out of time (`BeatActivation.swift`, `BeatTracker`, `BeatTrimming.swift`).
        public struct BeatSettings: Sendable, Hashable, Codable {
            /// Share of the beat activation taken from the linear onset strength in an impulsive texture
            /// (default 0.75; 0 turns it off; ``RhythmAnalyzer/beatCurve(_:onset:impulsiveShare:)``).
            public var linearFluxBeatShare: Float = 0.75
            /// Share of the beat activation taken from the harmonic change when only the harmonic
            /// change has a pulse (``TempoSettings/minimumHarmonicSalience``; default 0.5;
            /// ``RhythmAnalyzer/withHarmonicChange(_:harmonicChange:harmonicRate:frameRate:)``).
            public var harmonicChangeBeatShare: Float = 0.5
            /// Weight of the low-band onsets added once more to the curve the beat tracker follows,
            /// times the texture's impulsiveness (default 1, 0.8.10; 0 turns it off;
            /// ``RhythmAnalyzer/withLowBand(_:onset:impulsiveShare:)``).
            public var lowBandTrackingWeight: Float = 1
            /// Impulsiveness (median new-sound share at the onsets) from legato to the full
            /// ``linearFluxBeatShare``, linear in between (default `0.2 ... 0.3`).
            public var impulsiveTexture: ClosedRange<Float> = 0.2...0.3
            /// Scale of the activation: `a = activationScale * onset / (4 * localMean)` clipped to
            /// `[activationFloor, 0.95]` (default 0.25: an onset at the local mean level gives
            /// `a = 1 / observationLambda`, neutral between beat and non-beat states).
            public var activationScale: Double = 0.25
            /// Smallest activation of a legato texture (default 1/16 = 1 / observationLambda: frames
            /// without onsets are neutral).
            public var activationFloor: Double = 0.0625
            /// Smallest activation of a fully impulsive texture, where a frame without an onset is
            /// evidence against a beat (default 0.05; scaled in from ``activationFloor`` by the texture).
            public var impulsiveActivationFloor: Double = 0.05
            /// Window of the local reference level of the onset curve, seconds (default 4).
            public var activationWindowSeconds: Double = 4
            /// Beat periods tracked, as a factor around the global period (default 1.8).
            public var tempoRange: Double = 1.8
            /// Weight κ of the per-beat tempo prior `−κ · log2(τ / τ₀)²` around the global period in a
            /// legato texture (default 5).
            public var periodPriorWeight: Double = 5
            /// Weight κ of that prior in a fully impulsive texture (default 15; scaled in from
            /// ``periodPriorWeight`` by the texture, ``BeatTracker/periodPriorWeight``).
            public var impulsivePeriodPriorWeight: Double = 15
            /// Whether the beat tracker decodes in a time base where the global beat period is a whole
            /// number of frames (default true; ``BeatTracker/track(_:minPeriod:maxPeriod:centrePeriod:)``).
            public var decodesAtWholeFramePeriod: Bool = true
            /// Tempo-change sharpness λ of the transition model (default 100, Krebs 2015).
            public var transitionLambda: Double = 100
            /// Largest relative period change from one beat to the next (default 0.2).
            public var maximumPeriodChange: Double = 0.2
            /// Smallest ratio between a passage's tempo and the global tempo, octaves folded, for the
            /// tempo prior to centre on the passage's own tempo (default 1.12; 1 turns it off;
            /// ``TempoRegimes``).
            public var tempoRegimeChange: Double = 1.12
            /// Shortest passage of its own tempo, seconds (default 30).
            public var tempoRegimeSeconds: Double = 30
            /// Window of the local tempo estimates that find such passages, seconds (default 20).
            public var tempoRegimeWindowSeconds: Double = 20
            /// Least impulsive share of the texture for such passages to be looked for (default 0.5:
            /// where the prior's weight is at least halfway to ``impulsivePeriodPriorWeight``).
            public var tempoRegimeTexture: Float = 0.5
            /// Cost, in windows' votes, of a step of 6 % or more between two windows of the local
            /// tempo path, smaller steps in proportion (default 3).
            public var tempoRegimeSwitchCost: Double = 3
            /// Observation λ: the beat states are the first and last `τ / λ` positions (default 16,
            /// Krebs 2015).
            public var observationLambda: Double = 16
            /// Leading and trailing beats with an onset peak below this share of the median beat
            /// onset peak are dropped (default 0.4).
            public var edgeOnsetRatio: Double = 0.4
            /// Beats where the frame level stays more than this many decibels under the loud frames'
            /// level (its 95th percentile) are dropped as silent, and the last bar is not completed
            /// into such silence (default 70; 0 drops none). Replaces `silenceRatio` (0.8.16 and
            /// earlier).
            public var silenceDepth: Double = 70
            /// Length, in beats, of the window in which a passage out of time is recognised (default
            /// 12; 0 keeps every beat): see ``freePassageShare``.
            public var freePassageBeats: Int = 12
            /// Largest share of the window's beats with an onset (a peak at ``edgeOnsetRatio`` of the
            /// median beat's) for its beats to be dropped as out of time, at the head or the tail
            /// (default 0.25).
            public var freePassageShare: Double = 0.25
            /// Distance from the nearest beat or half beat, as a share of the beat interval, beyond
            /// which a note of such a passage is off the beats (default 0.15).
            public var freePassageBeatTolerance: Double = 0.15
            /// Least share of such a passage's notes off the beats (and at least two) for it to be
            /// out of time (default 0.25).
            public var freePassageOffBeatShare: Double = 0.25
            /// Minimum median relative flux (``OnsetFeatures/relativeFlux``) near the tracked beats for
            /// them to be reported (default 0.02): periodicity without new sound is no pulse.
            public var minimumNewSound: Double = 0.02

            /// The defaults.
            public init() {}
        }

        /// Steps 5, 8 and 10, the metrical level, the octave votes and the folding (`MetricalLevel.swift`, `OctaveVote.swift`).
        public struct LevelSettings: Sendable, Hashable, Codable {
            /// Whether the beat steps to the level at half its period when that level is the more salient
            /// to a listener, or at a third of it for a fast triple meter (default true).
            public var adjacentLevelSalience: Bool = true
            /// Least accent of the beats' thirds, as a share of the beats' own, for the level at a third
            /// of the period to replace a slow tracked level (default 0.34, between slow 12/8 ballads'
            /// 0.30 and fast waltzes' 0.37; ``adjacentLevelSalience``).
            public var tripleLevelAccent: Double = 0.34
            /// Least salience of the level at half the period, as a share of what it needs to replace
            /// the tracked level, at which the octave votes decide between the two (default 0.9; 1
            /// leaves the choice to the salience alone; ``adjacentLevelSalience``, ``octaveVoting``).
            public var salienceTie: Double = 0.9
            /// ``salienceTie`` for drummed half time: a drummed input (``drummedShare``) whose tracked
            /// beats carry no backbeat (``backbeatAlternation``) (default 0.78; 1 leaves it to
            /// ``salienceTie``).
            public var drummedSalienceTie: Double = 0.78
            /// Share of the audible time with drums from which an input is drummed (default 0.5).
            public var drummedShare: Double = 0.5
            /// Percussive over harmonic energy, dB in 0.5 s means, at which drums are present (default
            /// -13, as instrument activity's `drumPercussiveRatio`).
            public var drumPercussiveRatio: Double = -13
            /// Alternation of the low band between consecutive tracked beats (0 none, 1 every other
            /// beat silent) below which they carry no backbeat (default 0.45).
            public var backbeatAlternation: Double = 0.45
            /// Whether the window votes of ``OctaveVote`` halve the beats when they prefer the double
            /// period, and decide the near ties of step 5 (``salienceTie``; default true).
            public var octaveVoting: Bool = true
            /// Period of the largest prior weight of the octave votes' Rayleigh curve, seconds (default
            /// 0.4993, Davies & Plumbley 2007).
            public var octaveVotePeriod: Double = 43 * 512 / 44_100
            /// Beats whose accents vary less than this (coefficient of variation) are an isochronous
            /// stream and are not halved by the octave votes (default 0.2).
            public var isochronousVariation: Double = 0.2
            /// A tempo range the reported tempo is folded into by octaves, as DJ software does (e.g.
            /// `70...140`, at least an octave wide; default `nil`: the level listeners tap).
            public var foldedTempoRange: ClosedRange<Double>?

            /// The defaults.
            public init() {}
        }

        /// Step 6, each beat placed on its onset (`BeatPlacement.swift`).
        public struct PlacementSettings: Sendable, Hashable, Codable {
            /// Constant added to every beat time, seconds (default 0).
            public var latency: Double = 0
            /// Radius of the search for the onset peak near each beat, frames (default 2).
            public var refinementRadius: Int = 2
            /// Beats on each side of a beat whose onsets place it by a robust local fit (default 4; 0
            /// places each beat on its own onset; ``RhythmAnalyzer/smoothBeatTimes(_:weights:)``).
            public var beatSmoothingBeats: Int = 4
            /// Degree of that local fit: 2 (default), a parabola where the window is full and the
            /// curvature significant, which follows rubato, else a line; 1, always a line.
            public var beatSmoothingDegree: Int = 2
            /// Where on the onset peak a beat is placed: 0 at the peak, ρ in (0, 1) where the rising edge
            /// crosses ρ of the way from the local minimum to the peak (default 0.05).
            public var onsetRiseFraction: Double = 0.05
            /// Added to a beat placed on the rising edge, seconds (default 0.026).
            public var onsetRiseCompensation: Double = 0.026
            /// How far before its onset peak a beat's onset may begin in a legato texture, seconds
            /// (default 0.1; 0 turns it off).
            public var onsetClusterSeconds: Double = 0.1
            /// Share of the onset peak above which the frames before it belong to the same onset
            /// (default 0.2; see ``onsetClusterSeconds``).
            public var onsetClusterLevel: Double = 0.2

            /// The defaults.
            public init() {}
        }

        /// Step 7, meter and bar phase (`DownbeatTracker`, `Downbeats.swift`, `Bars.swift`).
        public struct DownbeatSettings: Sendable, Hashable, Codable {
            /// Meters (beats per bar) considered (default 3 and 4; values outside 2...16 are
            /// ignored).
            public var meters: [Int] = [3, 4]
            /// Weight of harmonic change in the downbeat salience (default 1).
            public var harmonicWeight: Double = 1
            /// Weight of low-band onsets in the downbeat salience (default 0.7).
            public var lowOnsetWeight: Double = 0.7
            /// Weight of broadband accents in the downbeat salience in a legato texture (default 0.4).
            public var accentWeight: Double = 0.4
            /// Weight of broadband accents in the downbeat salience in an impulsive texture (default 0,
            /// 0.8.12; 0.4 before); linear in the texture's impulsive share between the two
            /// (``DownbeatTracker/accentWeight(impulsiveShare:)``).
            public var impulsiveAccentWeight: Double = 0
            /// Correlation of the low- and high-band onsets' beat-to-beat alternation at and below
            /// which the accents are taken for a backbeat and left out of the downbeat salience
            /// (default -0.3; -1 keeps them always; ``DownbeatTracker/backbeatCorrelation(low:high:)``).
            public var backbeatCorrelation: Double = -0.3
            /// Weight of the dynamic stress (mean log energy over the beat) in the downbeat salience
            /// (default 0.5).
            public var loudnessWeight: Double = 0.5
            /// Robust standard deviations below the median loudness at which a beat counts as a rest
            /// (default 2).
            public var restThreshold: Double = 2
            /// Beats on each side compared for harmonic change (default 2).
            public var harmonicContextBeats: Int = 2
            /// A second span for the harmonic-change cue, beats on each side (default 1; 0 for none):
            /// the bars are decoded with each span and the higher path score per beat is kept.
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
            /// Weight per beat of a meter's bar-length periodicity, the beat cues' correlation with
            /// themselves one bar (and, in an even meter, half a bar) later (default 1; 0 turns it off).
            public var meterPeriodicityWeight: Double = 1
            /// Probability of a bar re-phasing jump per beat (default 1e-3).
            public var barJumpProbability: Double = 1e-3
            /// Probability of a meter change per beat (default 1e-6).
            public var meterChangeProbability: Double = 1e-6
            /// Whether the bar position advances by the beat periods elapsed between two beats, so
            /// that bars keep their place across a rest or a fermata where no beats were tracked
            /// (default true; ``DownbeatTracker/periodsElapsed(_:)``), rather than by one per beat.
            public var countsSkippedBeats: Bool = true
            /// Whether the bar in progress at the last tracked beat is completed while the music still
            /// sounds (default true).
            public var completesLastBar: Bool = true

            /// The defaults.
            public init() {}
        }

        /// Step 11, the tempo over time (`TempoCurve.swift`).
        public struct TempoCurveSettings: Sendable, Hashable, Codable {
            /// Beats in the window of each local tempo of ``RhythmResult/tempoCurve`` (default 16: four
            /// 4/4 bars, so a few misplaced beats do not move the window's median interval).
            public var tempoCurveWindowBeats: Int = 16
            /// ``RhythmResult/tempoCurve`` is reported when the local tempo departs from the global one by
            /// more than this share at two successive points (default 0.04; 0 always).
            public var tempoCurveDrift: Double = 0.04

            /// The defaults.
            public init() {}
        }
    }
}
