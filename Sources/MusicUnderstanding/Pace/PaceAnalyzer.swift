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
/// The settings of all steps are ``Configuration`` (`PaceConfiguration.swift`).
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
/// 2. Grid (`PaceGrid.swift`): the beats of the rhythm analysis are the metrical level listeners tap; each beat
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
