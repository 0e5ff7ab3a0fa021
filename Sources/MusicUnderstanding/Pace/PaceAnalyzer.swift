import Foundation

/// How fast the music feels over time, in perceived events per minute.
///
/// Perceived speed follows the rate of salient events more than the notated tempo: with the
/// tempo fixed, listeners judge denser rhythms faster, and the tempo level they tap is itself
/// chosen among the metrical levels the events articulate (G. Madison & J. Paulin, "Ratings of
/// speed in real music as a function of both original and manipulated beat tempo", JASA 128(5),
/// 2010, sec. IV: speed ratings rise with tempo and event density explains much of the rest).
/// The pace of a span is therefore its **event density on the tapped beat's grid**:
///
/// ```
/// pace = 60 × (occupied grid slots + events outside the beats) / (span seconds)   [events per minute]
/// ```
///
/// 1. Events: peaks of the broadband onset strength (SuperFlux, shared with rhythm), and of its
///    high band above 3.2 kHz (``Configuration/highBandEvents``: hi-hats masked in the
///    broadband flux by a loud mix), that are
///    local maxima over ±``Configuration/mergeSeconds`` (onsets closer than 50 ms fuse into one
///    perceived event) and exceed both the mean strength over ±0.5 s times
///    ``Configuration/localFactor`` and a salience floor, ``Configuration/salienceFloor`` × the
///    95th-percentile peak strength of the whole input (the loudness weighting: an event
///    counts 1 when it is salient against the loudest events, 0 otherwise); events in frames
///    more than ``Configuration/silenceLevel`` dB below the loudest count 0.
/// 2. Grid: the beats of the rhythm analysis are the metrical level listeners tap; each beat
///    is cut into ``Configuration/slotsPerBeat`` slots (sixteenths), every event snaps to the
///    nearest slot and a slot counts once however many instruments strike in it (the
///    simultaneous onsets of a chord and a kick are one event). A steady eighth-note texture
///    at 120 BPM is thus 240 events per minute, a chord per bar at 120 BPM in 4/4 is 30.
///    Events far off that grid and off the phases the input's own events favour are left out
///    (``onGrid(_:slots:slotBeats:beats:)``, with a tolerance that adapts to the input's timing
///    spread); masked events (``restoringMaskedEvents(_:slots:period:levels:rate:)``) and soft
///    events the bar's pattern expects (``restoringExpectedEvents(_:period:salience:)``) count.
///
/// Spans are groups of ``Configuration/barsPerRange`` bars of the rhythm analysis (2 by
/// default: phrase resolution without the noise of single bars), from the first bar to the end
/// of the last; without bars, and before the first bar or after the last bar's end (a lead-in,
/// a silent or reverberant tail), windows of about ``Configuration/windowSeconds``. The first
/// span starts at 0 and the last ends at the duration, so the ranges are contiguous and cover
/// the input.
public struct PaceAnalyzer: Sendable {
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

    /// The settings.
    public var configuration: Configuration

    /// Creates an analyzer.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// The event times (seconds) found in the onset features: the salient peaks of the
    /// broadband onset strength and, with ``Configuration/highBandEvents``, of the high band,
    /// merged within ``Configuration/mergeSeconds``.
    /// `curves` are ``eventCurves(_:)`` of `onset`, when already made.
    func events(_ onset: OnsetFeatures, curves: [EventCurve]? = nil) -> [Double] {
        let rate = onset.frameRate
        guard onset.count > 2, rate.isFinite, rate > 0 else { return [] }
        let curves = curves ?? eventCurves(onset)
        // The absolute floor is shared between the curves (a band holds part of the flux).
        let floor = configuration.minimumStrength / Float(max(1, curves.count))
        var times: [Double] = []
        for curve in curves {
            times.append(contentsOf: peaks(curve, energy: onset.energy, relativeFlux: onset.relativeFlux, rate: rate, minimum: floor))
        }
        times.sort()
        // Onsets found in both curves within the merge distance are one perceived event.
        var merged: [Double] = []
        let merge = configuration.mergeSeconds.isFinite ? max(0, configuration.mergeSeconds) : 0.05
        for t in times where merged.last.map({ t - $0 >= merge }) ?? true { merged.append(t) }
        return merged
    }

    /// One onset-strength curve that events are read from, with its candidate peaks and the
    /// reference its salience floor is a share of; made once per input and shared by the event
    /// detection and the expected-event salience.
    struct EventCurve {
        /// The curve, with non-finite and negative values as 0.
        var values: [Float]
        /// Its local maxima over ±``Configuration/mergeSeconds``: the candidate events.
        var peaks: [Int]
        /// The 95th-percentile strength of those peaks: the loud events the salience floor is a
        /// share of.
        var reference: Float
    }

    /// The onset-strength curves events are read from: the broadband one and, with
    /// ``Configuration/highBandEvents``, the high band's.
    func eventCurves(_ onset: OnsetFeatures) -> [EventCurve] {
        let raw = configuration.highBandEvents && onset.highStrength.count == onset.count ? [onset.strength, onset.highStrength] : [onset.strength]
        let merge = mergeFrames(rate: onset.frameRate.isFinite && onset.frameRate > 0 ? onset.frameRate : 1)
        return raw.map { curve in
            let values = curve.map { $0.isFinite ? max(0, $0) : 0 }
            let peaks = PeakPicking.localMaxima(values, radius: merge)
            return EventCurve(values: values, peaks: peaks, reference: Smoothing.quantile(peaks.map { values[$0] }, 0.95) ?? 0)
        }
    }

    /// ``Configuration/mergeSeconds`` in frames at `rate` (at least 1).
    func mergeFrames(rate: Double) -> Int {
        max(1, Int(((configuration.mergeSeconds.isFinite ? max(0, configuration.mergeSeconds) : 0.05) * rate).rounded()))
    }

    /// Salient peaks of one onset-strength curve, seconds.
    private func peaks(_ curve: EventCurve, energy: [Float], relativeFlux rel: [Float], rate: Double, minimum: Float) -> [Double] {
        let s = curve.values
        let n = s.count
        guard n > 2 else { return [] }
        let merge = mergeFrames(rate: rate)
        let local = Smoothing.movingAverage(s, half: max(1, Int((0.5 * rate).rounded())))
        let peaks = curve.peaks
        let reference = curve.reference
        guard reference > 0 else { return [] }
        // Audible frames from the log frame energy (log10 scale, ×10 for dB).
        let energyRef = Smoothing.quantile(energy, 0.95) ?? 0
        return peaks.compactMap { i in
            guard s[i] >= minimum, s[i] >= configuration.salienceFloor * reference, s[i] >= configuration.localFactor * local[i] else { return nil }
            if i < energy.count, energy[i].isFinite, 10 * (energyRef - energy[i]) > configuration.silenceLevel { return nil }
            if rel.count == n {
                guard PeakPicking.windowMaximum(rel, around: i, radius: merge) >= configuration.minimumNewSound else { return nil }
            }
            return Double(i) / rate
        }
    }

    /// Snaps the events between the first and last beat to a grid of ``Configuration/slotsPerBeat``
    /// slots per beat (nearest slot, after adding ``Configuration/latency``) and keeps one event
    /// per occupied slot, at the slot time; events outside the beats stay as they are. With
    /// `bars` and `onset` (and ``Configuration/restoresMaskedEvents``), masked events of the bar's
    /// pattern are restored (``restoringMaskedEvents(_:slots:period:levels:rate:)``).
    func quantised(_ times: [Double], beats: [Double], bars: [Double] = [], onset: OnsetFeatures? = nil, curves: [EventCurve]? = nil) -> [Double] {
        let k = configuration.slotsPerBeat
        let beats = beats.filter { $0.isFinite }.sorted()
        guard k >= 1, beats.count >= 2 else { return times }
        var slots: [Double] = []
        var slotBeats: [Int] = []  // the beat each slot belongs to
        slots.reserveCapacity((beats.count - 1) * k)
        for i in 0..<(beats.count - 1) where beats[i + 1] > beats[i] {
            for j in 0..<k {
                slots.append(beats[i] + (beats[i + 1] - beats[i]) * Double(j) / Double(k))
                slotBeats.append(i)
            }
        }
        guard let firstSlot = slots.first, let lastBeat = beats.last else { return times }
        let shift = configuration.latency.isFinite ? configuration.latency : 0
        var out: [Double] = []
        var snapped: [(slot: Int, time: Double)] = []
        for raw in times {
            let t = raw + shift
            guard t >= firstSlot - 0.05, t < lastBeat else { out.append(raw); continue }
            // Nearest slot by binary search.
            var lo = 0, hi = slots.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if slots[mid] < t { lo = mid + 1 } else { hi = mid }
            }
            var nearest = min(lo, slots.count - 1)
            if lo > 0 && abs(slots[lo - 1] - t) <= abs(slots[nearest] - t) { nearest = lo - 1 }
            snapped.append((nearest, t))
        }
        var occupied = [Bool](repeating: false, count: slots.count)
        let kept = configuration.rejectsOffGridEvents ? onGrid(snapped, slots: slots, slotBeats: slotBeats, beats: beats) : snapped.map { _ in true }
        for (event, keep) in zip(snapped, kept) where keep { occupied[event.slot] = true }
        if let onset, onset.frameRate.isFinite, onset.frameRate > 0,
            let beatsPerBar = Self.beatsPerBar(beats: beats, bars: bars)
        {
            if configuration.restoresMaskedEvents {
                let levels = [onset.energy, onset.highEnergy].filter { $0.count == onset.count && !$0.isEmpty }
                occupied = restoringMaskedEvents(occupied, slots: slots, period: beatsPerBar * k, levels: levels, rate: onset.frameRate)
            }
            if configuration.restoresExpectedEvents {
                let strengths = salience(at: slots, rate: onset.frameRate, curves: curves ?? eventCurves(onset))
                occupied = restoringExpectedEvents(occupied, period: beatsPerBar * k, salience: strengths)
            }
        }
        for i in slots.indices where occupied[i] { out.append(slots[i]) }
        return out.sorted()
    }

    /// Which snapped events lie on the metrical grid. Listeners hear a performance's timing
    /// against the grid of the meter they entrain to, and its expressive deviations stay within a
    /// small part of the grid's interval (E. W. Large & C. Palmer, "Perceiving temporal regularity
    /// in music", Cognitive Science 26(1), 2002, sec. 2 and 5); the onsets of speech laid over
    /// music, or of a free ornament, fall anywhere between the slots. The grid is the beat's
    /// ``Configuration/slotsPerBeat`` slots plus the phases of the beat that the input's events
    /// favour (a swung or triplet eighth; a 48-bin histogram of the events' phases, bins holding
    /// ``Configuration/commonPhaseDensity`` times the uniform share), in the spirit of the
    /// bar-length rhythm patterns of S. Dixon, F. Gouyon & G. Widmer, "Towards characterisation of
    /// music via rhythmic patterns", ISMIR 2004. The tolerance adapts to the input's own timing:
    /// ``Configuration/offGridSpread`` times the median distance of its events to the nearest slot
    /// (at least ``Configuration/offGridMinimum`` slots), so a loosely timed performance keeps
    /// every event and a tightly timed track drops only what keeps no time with it. Distances
    /// are in slots; an event counts when its distance to the nearest grid phase is within it.
    func onGrid(_ events: [(slot: Int, time: Double)], slots: [Double], slotBeats: [Int], beats: [Double]) -> [Bool] {
        let k = configuration.slotsPerBeat
        guard k >= 1, !events.isEmpty, slotBeats.count == slots.count else { return events.map { _ in true } }
        /// Distance of `x` to the nearest whole number.
        func circular(_ x: Double) -> Double { abs(x - x.rounded()) }
        // The phase of each event in the beat of its slot (a little below 0 or above 1 near the
        // beat's edges; circular distances make that harmless).
        let phases: [Double] = events.map { e in
            let b = slotBeats[e.slot]
            let length = b + 1 < beats.count ? beats[b + 1] - beats[b] : 0
            return length > 0 ? (e.time - beats[b]) / length : 0
        }
        let bins = 48
        var histogram = [Double](repeating: 0, count: bins)
        for p in phases {
            let f = p - p.rounded(.down)
            histogram[min(bins - 1, max(0, Int(f * Double(bins))))] += 1
        }
        let uniform = Double(phases.count) / Double(bins)
        let density = configuration.commonPhaseDensity.isFinite ? configuration.commonPhaseDensity : 3
        var common: [Double] = []
        for j in 0..<bins {
            let h = histogram[j]
            if h >= density * uniform && h >= histogram[(j + bins - 1) % bins] && h >= histogram[(j + 1) % bins] {
                common.append((Double(j) + 0.5) / Double(bins))
            }
        }
        // Distances in slots: to the slot grid, and to the grid with the common phases.
        let toSlots = phases.map { circular($0 * Double(k)) }
        let toGrid = zip(phases, toSlots).map { p, d in common.reduce(d) { min($0, circular(p - $1) * Double(k)) } }
        // The input's timing spread: the median distance of the events that make up each slot.
        var perSlot: [Int: Double] = [:]
        for (e, d) in zip(events, toSlots) { perSlot[e.slot] = min(perSlot[e.slot] ?? .infinity, d) }
        let median = Smoothing.median(perSlot.values) ?? 0
        let spread = configuration.offGridSpread.isFinite ? max(0, configuration.offGridSpread) : 6
        let minimum = configuration.offGridMinimum.isFinite ? max(0, configuration.offGridMinimum) : 0.15
        let tolerance = max(minimum, spread * median)
        return toGrid.map { $0 <= tolerance }
    }

    /// The onset strength at each slot as a share of the salience floor: the strongest value of
    /// the broadband or high-band onset strength within ±``Configuration/expectationWindowSeconds``, divided by
    /// that curve's floor (``Configuration/salienceFloor`` × its 95th-percentile peak); the larger
    /// of the two. 1 is as salient as the softest event counted.
    func salience(at slots: [Double], rate: Double, curves: [EventCurve]) -> [Float] {
        guard rate.isFinite, rate > 0 else { return slots.map { _ in 0 } }
        let window = max(0, Int(((configuration.expectationWindowSeconds.isFinite ? configuration.expectationWindowSeconds : 0.025) * rate).rounded()))
        let floors = curves.map { configuration.salienceFloor * $0.reference }
        return slots.map { t in
            let f = Int((t * rate).rounded())
            var best: Float = 0
            for (c, floor) in zip(curves, floors) where floor > 0 && f >= 0 && f < c.values.count {
                let v = PeakPicking.windowMaximum(c.values, around: f, radius: window)
                if v.isFinite { best = max(best, v / floor) }
            }
            return best
        }
    }

    /// Metrical expectation: an event the bar's pattern predicts is heard at a lower level than
    /// an unexpected one. Attention is drawn to the times a regular pattern leads the listener to
    /// expect, and sounds there are detected and judged better (E. W. Large & M. R. Jones, "The
    /// dynamics of attending: how people track time-varying events", Psychological Review 106(1),
    /// 1999, sec. 1 and 4; M. R. Jones, H. Moynihan, N. MacKenzie & J. Puente, "Temporal aspects of
    /// stimulus-driven attending in dynamic arrays", Psychological Science 13(4), 2002). The
    /// pattern is read from the bars around the slot, as in the bar-synchronous rhythm patterns of
    /// S. Dixon, F. Gouyon & G. Widmer ("Towards characterisation of music via rhythmic patterns",
    /// ISMIR 2004, sec. 3): slot `i` (empty, and not next to an occupied slot: that event is the
    /// pattern's, snapped a slot early or late) is expected when the median `salience` (the onset
    /// strength as a share of the salience floor, ``salience(at:rate:curves:)``) at its place in the
    /// ``Configuration/expectationBars`` bars before and after it, and in its own bar, reaches
    /// ``Configuration/patternSalience``; it counts when its own salience reaches
    /// ``Configuration/expectedEventLevel``. A soft hi-hat of a steady pattern under louder kicks
    /// and chords falls below the salience floor in some bars and above it in others; where the
    /// drums stop, the median falls and nothing is predicted. A median is not raised by one loud
    /// event at that place (a fill, a crash).
    func restoringExpectedEvents(_ occupied: [Bool], period: Int, salience: [Float]) -> [Bool] {
        guard period >= 1, salience.count == occupied.count else { return occupied }
        let bars = max(0, configuration.expectationBars)
        let pattern = configuration.patternSalience.isFinite ? configuration.patternSalience : 1
        let level = configuration.expectedEventLevel.isFinite ? configuration.expectedEventLevel : 0.2
        var out = occupied
        for i in occupied.indices where !occupied[i] && salience[i] >= level {
            if (i > 0 && occupied[i - 1]) || (i + 1 < occupied.count && occupied[i + 1]) { continue }
            let place = (-bars...bars).map { i + $0 * period }.filter { $0 >= 0 && $0 < salience.count }.map { salience[$0] }
            if place.count > 1, let median = Smoothing.quantile(place, 0.5), median >= pattern { out[i] = true }
        }
        return out
    }

    /// The most common number of beats between consecutive bars (1 ... 16), or nil.
    static func beatsPerBar(beats: [Double], bars: [Double]) -> Int? {
        let bars = bars.filter { $0.isFinite }.sorted()
        guard bars.count >= 2, beats.count >= 2 else { return nil }
        var counts: [Int: Int] = [:]
        var j = 0
        for i in 0..<(bars.count - 1) {
            while j < beats.count && beats[j] < bars[i] - 1e-6 { j += 1 }
            var n = 0, m = j
            while m < beats.count && beats[m] < bars[i + 1] - 1e-6 { n += 1; m += 1 }
            if n >= 1 && n <= 16 { counts[n, default: 0] += 1 }
        }
        return counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key
    }

    /// Auditory induction: an event of a regular pattern hidden by a louder sound is heard as
    /// continuing through it (R. M. Warren, C. J. Obusek & J. M. Ackroff, "Auditory induction:
    /// perceptual synthesis of absent sounds", Science 176, 1972: a sound interrupted by a louder
    /// one that could have masked it is perceived as present; A. S. Bregman, *Auditory Scene
    /// Analysis*, 1990, ch. 3, the continuity illusion). Slot `i` (empty) is restored when slots
    /// `i − period` and `i + period` (the same place in the previous and next bar) hold events
    /// and, in one of the level curves (broadband and high-band log energy, 10·log10 scale), the
    /// loudest frame within ±``Configuration/mergeSeconds`` of slot `i` is at least the level at
    /// the quieter of those two events less ``Configuration/maskingMargin``: something as loud as
    /// the pattern's own events sounds there. A rest in a vocal phrase or a stop of the drums is
    /// quieter than the notes around it and stays empty; so does a slot next to an occupied one
    /// (``Configuration/restoresOnlyIsolatedSlots``: that event is the pattern's, snapped a slot
    /// early or late, and restoring its slot counted it twice; on the harness songs this kept
    /// the restoration from adding 2-4 % to verses and choruses, and on the realmusic tracks it
    /// leaves the pace within 1 % of the unrestored value but for one). A hi-hat under a crash cymbal rises by
    /// 1 dB above the crash's ring, under any onset detector's threshold (the harness songs'
    /// choruses lost about 3 of their 4 off-beat hats in the first bar); the hats before and
    /// after the crash bring it back.
    func restoringMaskedEvents(_ occupied: [Bool], slots: [Double], period: Int, levels: [[Float]], rate: Double) -> [Bool] {
        guard period >= 1, occupied.count == slots.count, !levels.isEmpty else { return occupied }
        let half = configuration.mergeSeconds.isFinite ? max(0, configuration.mergeSeconds) : 0.05
        let margin = configuration.maskingMargin.isFinite ? configuration.maskingMargin : 0
        func level(_ curve: [Float], at t: Double) -> Float {
            let a = max(0, Int(((t - half) * rate).rounded(.down))), b = min(curve.count - 1, Int(((t + half) * rate).rounded(.up)))
            guard a <= b else { return -.infinity }
            var m = -Float.infinity
            for f in a...b where curve[f].isFinite && curve[f] > m { m = curve[f] }
            return 10 * m
        }
        var out = occupied
        guard occupied.count > 2 * period else { return out }
        for i in period..<(occupied.count - period) where !occupied[i] && occupied[i - period] && occupied[i + period] {
            // An event in a neighbouring slot is the pattern's event, early or late.
            if configuration.restoresOnlyIsolatedSlots && (occupied[i - 1] || occupied[i + 1]) { continue }
            for curve in levels {
                let pattern = min(level(curve, at: slots[i - period]), level(curve, at: slots[i + period]))
                if level(curve, at: slots[i]) >= pattern - margin { out[i] = true; break }
            }
        }
        return out
    }

    /// Range boundaries: groups of bars, or fixed windows; from 0 to `duration`.
    ///
    /// The music's own span is cut at the bars: from the first bar to the end of the last bar
    /// (its start plus the mean bar length, or one mean beat after the last beat when that comes
    /// first) in groups of ``Configuration/barsPerRange``. What lies
    /// outside it — a lead-in before the first bar, the silence and reverb after the last one —
    /// gets ranges of its own (fixed windows when long), so the events of the first and last
    /// bars are not spread over seconds without music (an outro read 20-30 % low when the song's
    /// 2-4 s tail joined its last group). Stretches shorter than
    /// ``Configuration/minimumRangeSeconds`` join their neighbour.
    func boundaries(duration: Double, rhythm: RhythmResult?) -> [Double] {
        guard duration.isFinite, duration > 0 else { return [] }
        let bars = (rhythm?.gridBars ?? []).filter { $0.isFinite && $0 > 0 && $0 < duration }.sorted()
        var edges: [Double] = [0]
        let group = max(1, configuration.barsPerRange)
        // At most a million windows, whatever the duration claims.
        let w = max(0.5, duration / 1_000_000, configuration.windowSeconds.isFinite ? configuration.windowSeconds : 5)
        let shortest = configuration.minimumRangeSeconds.isFinite ? max(0, configuration.minimumRangeSeconds) : 0.25
        /// Windows of about `w` from `a` (an edge already in place) to `b` (not added).
        func windows(from a: Double, to b: Double) -> [Double] {
            let n = Int(((b - a) / w).rounded())
            guard n >= 2 else { return [] }
            let step = (b - a) / Double(n)
            return (1..<n).map { a + Double($0) * step }
        }
        if bars.count >= 2 {
            // Before the first bar: windows ending on it; a lead-in shorter than
            // `minimumRangeSeconds` joins the first group.
            if bars[0] >= shortest {
                edges.append(contentsOf: windows(from: 0, to: bars[0]))
                edges.append(bars[0])
            }
            var k = 0
            while k + group < bars.count {
                k += group
                edges.append(bars[k])
            }
            // After the last bar's end: windows up to the duration; a tail shorter than
            // `minimumRangeSeconds` joins the last group.
            let barLength = (bars[bars.count - 1] - bars[0]) / Double(bars.count - 1)
            // The music ends with its last bar, or a beat after its last beat when that bar is
            // incomplete (a pattern that stops mid-bar, or a bar phase the meter leaves open).
            var musicEnd = bars[bars.count - 1] + barLength
            let beats = (rhythm?.gridBeats ?? []).filter { $0.isFinite && $0 >= bars[0] && $0 < duration }.sorted()
            if beats.count >= 2, let last = beats.last {
                let beatLength = (last - beats[0]) / Double(beats.count - 1)
                if last + beatLength > bars[bars.count - 1] { musicEnd = min(musicEnd, last + beatLength) }
            }
            if duration - musicEnd >= shortest {
                edges.append(musicEnd)
                edges.append(contentsOf: windows(from: musicEnd, to: duration))
            }
        } else {
            edges.append(contentsOf: windows(from: 0, to: duration))
        }
        var distinct: [Double] = []
        for t in edges where t < duration && (distinct.last.map({ t > $0 + 1e-6 }) ?? true) { distinct.append(t) }
        distinct.append(duration)
        return distinct
    }

    /// Analyses the onset features, with the bars of `rhythm` when it found any.
    public func analyze(_ features: SharedFeatures, rhythm: RhythmResult?) -> PaceResult {
        let duration = features.duration.isFinite ? max(0, features.duration) : 0
        let curves = features.onset.map(eventCurves)
        let times = quantised(
            features.onset.map { events($0, curves: curves) } ?? [], beats: rhythm?.gridBeats ?? [], bars: rhythm?.gridBars ?? [],
            onset: features.onset, curves: curves)
        let edges = boundaries(duration: duration, rhythm: rhythm)
        guard edges.count >= 2 else { return PaceResult(ranges: []) }
        var ranges: [MusicUnderstandingSession.RangedValue<Double>] = []
        var j = 0
        for r in 0..<(edges.count - 1) {
            let a = edges[r], b = edges[r + 1]
            var count = 0
            while j < times.count && times[j] < a { j += 1 }
            var k = j
            while k < times.count && times[k] < b { count += 1; k += 1 }
            let pace = b > a ? 60 * Double(count) / (b - a) : 0
            ranges.append(.init(range: TimeRange(start: a, end: b), value: (pace * 10).rounded() / 10))
        }
        return PaceResult(ranges: ranges)
    }
}
