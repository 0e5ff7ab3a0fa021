import Foundation

extension PaceAnalyzer {
    /// Settings of pace, with documented defaults.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Bars per range when the rhythm analysis found bars (default 2).
        public var barsPerRange: Int = 2
        /// Range length when there are no bars, seconds (default 5).
        public var windowSeconds: Double = 5
        /// A lead-in before the first bar or a tail after the last one shorter than this joins the
        /// neighbouring range, seconds (default 0.25).
        public var minimumRangeSeconds: Double = 0.25
        /// Onset peaks within this distance fuse into one event, seconds (default 0.05).
        public var mergeSeconds: Double = 0.05
        /// An event's onset strength must exceed this factor times the mean strength over
        /// ±0.5 s (default 1: above the local average).
        public var localFactor: Float = 1
        /// An event's onset strength must exceed this share of the 95th-percentile peak
        /// strength of the input (default 0.085: soft notes of a sparse intro count, reverb
        /// and whitening noise do not).
        public var salienceFloor: Float = 0.085
        /// Grid slots per beat that events snap to (default 4, sixteenth notes of the tapped
        /// beat); 0 or 1 disables the grid below the beat. Events in the same slot are one.
        public var slotsPerBeat: Int = 4
        /// Absolute minimum onset strength of an event (default 0.5; music's onset peaks are
        /// 3-40, a steady tone's whitened noise floor stays far below).
        public var minimumStrength: Float = 0.5
        /// Added to the event times before snapping, seconds (default 0: the shared onset curves
        /// are placed at the onsets they stand for, ``OnsetFeatures``).
        public var latency: Double = 0
        /// Smallest relative flux (``OnsetFeatures/relativeFlux``, the share of the frame's
        /// spectral magnitude that is new) within ±``mergeSeconds`` of an event (default 0.02,
        /// as rhythm's ``RhythmAnalyzer/Configuration/BeatSettings/minimumNewSound``): the whitened flux of a
        /// steady tone's side-lobes is no event.
        public var minimumNewSound: Float = 0.02
        /// Frames whose energy is this many dB (of the onset frame energy, 10·log10 scale)
        /// below the 95th percentile count no events (default 40).
        public var silenceLevel: Float = 40
        /// Whether the peaks of the high band (above 3.2 kHz: hi-hats, cymbals, snare noise)
        /// are events too (default true). In a loud mix, hi-hat strokes between the beats add
        /// little to the broadband flux and fall under its salience floor; in their own band
        /// they stand out (the band-wise onset detection of A. Klapuri, "Sound onset detection
        /// by applying psychoacoustic knowledge", ICASSP 1999, sec. 2-3, with two bands).
        public var highBandEvents: Bool = true
        /// Whether a masked event of a regular pattern is restored (default true): an empty grid
        /// slot whose counterparts one bar before and one bar after hold events counts as an
        /// event when the sound there is at least as loud as at those counterparts, less
        /// ``maskingMargin`` (see ``PaceAnalyzer/restoringMaskedEvents(_:slots:period:levels:rate:)``).
        public var restoresMaskedEvents: Bool = true
        /// How far below the level of the pattern's audible events (dB) the sound in an empty
        /// slot may be and still count as their masker (default 0).
        public var maskingMargin: Float = 0
        /// Whether a slot next to an occupied one is left empty by the restoration (default true).
        public var restoresOnlyIsolatedSlots: Bool = true
        /// Whether events far off the metrical grid are left out (default true; see
        /// ``PaceAnalyzer/onGrid(_:slots:slotBeats:beats:)``): an event counts when its distance
        /// to the nearest slot of the beat, or to a phase of the beat that the input's own events
        /// favour, is within ``offGridSpread`` times the input's median distance to the slots
        /// (at least ``offGridMinimum`` slots).
        public var rejectsOffGridEvents: Bool = true
        /// The tolerance for events off the grid, as a multiple of the input's median distance of
        /// its events to the nearest slot (default 6: a tightly timed track's own events lie within
        /// about 0.03 of a slot, a performance's spread widens the tolerance until nothing is left
        /// out).
        public var offGridSpread: Double = 6
        /// The smallest tolerance for events off the grid, in slots (default 0.15).
        public var offGridMinimum: Double = 0.15
        /// A phase of the beat is one the input's events favour (a swung eighth, a triplet) when
        /// the share of its events there is this many times the uniform share, in 48 bins of the
        /// beat (default 3).
        public var commonPhaseDensity: Double = 3
        /// Whether an empty slot where the bar's pattern expects an event (the place is salient in
        /// the median bar around it) counts when a softer onset is heard there (default true; see
        /// ``PaceAnalyzer/restoringExpectedEvents(_:period:salience:)``).
        public var restoresExpectedEvents: Bool = true
        /// Bars before and after an empty slot that show its pattern (default 3: the slot's place
        /// in the 7 bars centred on it).
        public var expectationBars: Int = 3
        /// The median onset strength at the slot's place in those bars, as a share of the salience
        /// floor, for the place to belong to the pattern (default 0.75: on the plateau 0.65-0.75
        /// over 50 generated songs, the harness's 30 and 20 more from its generator
        /// (`scripts/extra-songs.py`), at its upper end since lower values add more events to dense
        /// orchestral textures (warzone2100 track24: +4.7 % at 0.8, +9.6 % at 0.75, +19.7 % at
        /// 0.7); 20 further songs, not used to choose it, read 0.740).
        public var patternSalience: Float = 0.75
        /// The onset strength that counts as heard at an expected slot, as a share of the salience
        /// floor (``salienceFloor`` × the 95th-percentile peak) of the broadband or high-band curve
        /// (default 0.2).
        public var expectedEventLevel: Float = 0.2
        /// How far from a slot its onset strength is read for the pattern and the expected event,
        /// seconds (default 0.025: about the asynchrony of players sounding together, R. A. Rasch,
        /// "Synchronization in performed ensemble music", Acustica 43, 1979; with ±50 ms, at fast
        /// tempos a window covered most of the time between sixteenths, and a dense orchestral
        /// texture (warzone2100 track24) gained 16 % more events, against 4.7 % now).
        public var expectationWindowSeconds: Double = 0.025
        /// The defaults.
        public init() {}
    }
}
