import Foundation

/// Step 2 of the pace analysis (see ``PaceAnalyzer``): the events snapped to the tapped beat's
/// grid, those off the grid left out, and the masked and expected events restored.
extension PaceAnalyzer {
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
}
