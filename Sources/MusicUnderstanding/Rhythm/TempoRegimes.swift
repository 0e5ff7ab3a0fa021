import Foundation

/// Step 4a of the rhythm chain: passages of another tempo (a medley, a DJ mix, songs joined in
/// one file), where the beat tracker's tempo prior is centred on the passage's own tempo
/// instead of the global one.
///
/// The tracker's per-beat prior holds the beats near the global tempo
/// (``BeatTracker/periodPriorWeight``), which keeps drummed music off wrong metrical levels but
/// also holds a second song at the first song's tempo, where its beats then fit neither. Method:
/// 1. the local tempo, the global estimate's method (``TempoEstimator``) on windows of
///    ``RhythmAnalyzer/Configuration/BeatSettings/tempoRegimeWindowSeconds`` every quarter window;
/// 2. their tempo classes with the octaves folded (a local estimate often takes the double or
///    half of its neighbour's beat, which is no change of tempo), 48 to the octave;
/// 3. the most likely class path across the windows (a Viterbi decoding of the period across
///    windows, as in M. E. P. Davies & M. D. Plumbley, "Context-dependent beat tracking of musical
///    audio", IEEE TASLP 15(3), 2007, sec. III-C): each window votes for its own class, and a
///    step costs ``RhythmAnalyzer/Configuration/BeatSettings/tempoRegimeSwitchCost`` votes in
///    proportion to its size up to 4 classes (6 %), so the path drifts with a gradual change and
///    jumps only where several windows agree on another tempo;
/// 4. runs of the path split at its jumps, those shorter than
///    ``RhythmAnalyzer/Configuration/BeatSettings/tempoRegimeSeconds`` joined to a neighbour;
/// 5. a run whose folded tempo differs from the global one by at least
///    ``RhythmAnalyzer/Configuration/BeatSettings/tempoRegimeChange``, and with which at least
///    half of its windows agree (within two classes), is a passage, unless the
///    ratio is within 2 % of 4:3 or 3:2: such a run is a metrical level of the same pulse (a
///    triplet feel, a dotted riff, a hemiola) more often than a new tempo, which the prior is there
///    to hold (``BeatTracker/periodPriorWeight``). Its centre is the median period of the
///    agreeing windows, each moved by octaves to within half an octave of the global period.
///
/// Everywhere else the centre stays the global period, so an input without such a passage is
/// tracked exactly as without this step.
struct TempoRegimes: Sendable {
    /// Tempo classes per octave of the folded path (48: 1.45 % apart).
    static let classesPerOctave = 48

    /// One passage: from `frame` (of the onset curve) on, the tempo prior is centred on `ratio`
    /// times the global period.
    struct Change: Sendable, Equatable {
        /// First frame of the passage.
        var frame: Int
        /// Its centre period over the global period (1: the global tempo).
        var ratio: Double
    }

    /// The settings of the step.
    var settings: RhythmAnalyzer.Configuration.BeatSettings

    /// The passages of the tempo curve from its local periods `local` (frames at `frameRate`,
    /// `nil` where a window has no estimate; window `w` covers frames from `w × hop` for `length`
    /// frames), given the global `period` (frames): changes from frame 0 on, or empty when the
    /// input keeps one tempo.
    func changes(local: [Double?], hop: Int, length: Int, period: Double, frameRate: Double) -> [Change] {
        let change = settings.tempoRegimeChange
        guard change > 1, change.isFinite, period > 0, frameRate > 0, hop > 0 else { return [] }
        let minimumWindows = max(1, Int((settings.tempoRegimeSeconds * frameRate / Double(hop)).rounded(.up)))
        guard local.count >= 2 * minimumWindows else { return [] }
        let classes = Self.classesPerOctave
        let votes = local.map { $0.map { Self.foldedClass($0, classes: classes) } }
        let path = Self.path(votes, classes: classes, switchCost: settings.tempoRegimeSwitchCost)
        let runs = Self.runs(path, minimumLength: minimumWindows, classes: classes)
        guard runs.count >= 2 else { return [] }
        let globalClass = Self.foldedClass(period, classes: classes)
        let threshold = log2(change) * Double(classes)
        var out: [Change] = []
        for run in runs {
            var ratio = 1.0
            let runClass = Self.circularMedian(path[run], classes: classes)
            // The windows of the run that agree with its class (within two classes); a passage
            // needs at least half of its windows to agree.
            let agreeing = local[run].compactMap { $0 }.filter { Self.distance(Self.foldedClass($0, classes: classes), runClass, classes: classes) <= 2 }
            if Double(Self.distance(runClass, globalClass, classes: classes)) >= threshold, 2 * agreeing.count >= run.count,
                let centre = centrePeriod(agreeing, period: period), !Self.isMetricalLevel(centre / period)
            {
                ratio = centre / period
            }
            if out.last?.ratio == ratio { continue }
            let frame = run.lowerBound == 0 ? 0 : Int((Double(run.lowerBound) - 0.5) * Double(hop) + Double(length) / 2)
            out.append(Change(frame: frame, ratio: ratio))
        }
        // The global tempo holds somewhere; otherwise the local estimates disagree with the global
        // one about the whole input, which is a question of metrical level (steps 5 and 8).
        guard out.contains(where: { $0.ratio == 1 }), out.contains(where: { $0.ratio != 1 }) else { return [] }
        return out
    }

    /// The median of a run's local `periods`, each first moved by octaves to within half an
    /// octave of the global `period`: the passage keeps the metrical level of the rest of the
    /// input as far as its tempo allows (the tapped level changes little when the tempo does:
    /// M. F. McKinney & D. Moelants, "Ambiguity in tempo perception", Music Perception 24(2),
    /// 2006), and the local estimates' own octave, which often swaps from window to window, does
    /// not decide it. `nil` without periods.
    private func centrePeriod(_ periods: [Double], period: Double) -> Double? {
        let folded = periods.filter { $0 > 0 && $0.isFinite }.map { p -> Float in
            var p = p
            while p > period * 2.0.squareRoot() { p /= 2 }
            while p < period / 2.0.squareRoot() { p *= 2 }
            return Float(p)
        }
        guard let centre = Smoothing.median(folded).map(Double.init), centre > 0 else { return nil }
        return centre
    }

    /// Whether a period ratio, octaves folded, lies within 2 % of 4:3 or 3:2 (either way up).
    static func isMetricalLevel(_ ratio: Double) -> Bool {
        guard ratio > 0 else { return false }
        var octave = log2(ratio)
        octave -= octave.rounded(.down)
        for simple in [4.0 / 3, 3.0 / 2] {
            let target = log2(simple) - log2(simple).rounded(.down)
            var d = abs(octave - target)
            d = min(d, 1 - d)
            if d <= log2(1.02) { return true }
        }
        return false
    }

    /// The folded tempo class of a period of `period` frames: the fractional part of
    /// `log2(period)` in `classes` steps.
    static func foldedClass(_ period: Double, classes: Int) -> Int {
        let octave = log2(max(period, 1e-9))
        let fraction = octave - octave.rounded(.down)
        return min(classes - 1, max(0, Int(fraction * Double(classes))))
    }

    /// The circular distance between two classes.
    static func distance(_ a: Int, _ b: Int, classes: Int) -> Int {
        let d = abs(a - b) % classes
        return min(d, classes - d)
    }

    /// The most likely class path through the windows' `votes` (a class each, `nil` for none):
    /// a window scores 1 on its own class and the classes next to it, and a step of `d` classes
    /// (circularly) between two windows costs `switchCost × min(1, d / 4)`.
    static func path(_ votes: [Int?], classes: Int, switchCost: Double) -> [Int] {
        guard !votes.isEmpty, classes > 0 else { return [] }
        let jump = 4
        func score(_ w: Int, _ c: Int) -> Double {
            guard let v = votes[w] else { return 0 }
            return distance(v, c, classes: classes) <= 1 ? 1 : 0
        }
        var value = (0..<classes).map { score(0, $0) }
        var back: [[Int]] = []
        back.reserveCapacity(votes.count)
        for w in 1..<votes.count {
            let top = value.indices.max { value[$0] < value[$1] } ?? 0
            var next = [Double](repeating: 0, count: classes)
            var pointers = [Int](repeating: 0, count: classes)
            for c in 0..<classes {
                var from = c, best = value[c]
                for d in (1 - jump)...(jump - 1) where d != 0 {
                    let p = (c + d + classes) % classes
                    let v = value[p] - switchCost * Double(abs(d)) / Double(jump)
                    if v > best { best = v; from = p }
                }
                if value[top] - switchCost > best { best = value[top] - switchCost; from = top }
                next[c] = best + score(w, c)
                pointers[c] = from
            }
            back.append(pointers)
            value = next
        }
        var c = value.indices.max { value[$0] < value[$1] } ?? 0
        var out = [Int](repeating: 0, count: votes.count)
        out[votes.count - 1] = c
        for w in stride(from: votes.count - 1, to: 0, by: -1) {
            c = back[w - 1][c]
            out[w - 1] = c
        }
        return out
    }

    /// The runs of `path` (window ranges) split where it steps by more than two classes, each
    /// run shorter than `minimumLength` windows joined to its longer neighbour, the shortest first.
    static func runs(_ path: [Int], minimumLength: Int, classes: Int) -> [Range<Int>] {
        guard !path.isEmpty else { return [] }
        var runs: [Range<Int>] = []
        var start = 0
        for w in 1..<path.count where distance(path[w], path[w - 1], classes: classes) > 2 {
            runs.append(start..<w)
            start = w
        }
        runs.append(start..<path.count)
        while runs.count > 1, let shortest = runs.indices.min(by: { runs[$0].count < runs[$1].count }),
            runs[shortest].count < minimumLength
        {
            let into: Int
            if shortest == 0 {
                into = 1
            } else if shortest == runs.count - 1 {
                into = shortest - 1
            } else {
                into = runs[shortest - 1].count >= runs[shortest + 1].count ? shortest - 1 : shortest + 1
            }
            runs[into] = min(runs[into].lowerBound, runs[shortest].lowerBound)..<max(runs[into].upperBound, runs[shortest].upperBound)
            runs.remove(at: shortest)
        }
        return runs
    }

    /// The circular median of `values` (classes): the class that minimises the summed circular
    /// distance to them.
    static func circularMedian(_ values: ArraySlice<Int>, classes: Int) -> Int {
        var best = 0, bestCost = Int.max
        for c in 0..<classes {
            let cost = values.reduce(0) { $0 + distance($1, c, classes: classes) }
            if cost < bestCost { best = c; bestCost = cost }
        }
        return best
    }
}

extension RhythmAnalyzer {
    /// Step 4a: the passages of the tempo-estimation `curve` (at `frameRate`) whose tempo differs
    /// from the global `period` (frames), ``TempoRegimes``; empty when there is none, when the
    /// step is off (``Configuration/BeatSettings/tempoRegimeChange`` 1), or when the texture is
    /// more legato than ``Configuration/BeatSettings/tempoRegimeTexture`` (`impulsiveShare`,
    /// ``impulsiveShare(onset:curve:)``): there the tracker's prior is weak and follows a change of
    /// tempo by itself, and the local estimates of soft onsets are the least reliable.
    func tempoPassages(
        _ curve: [Float], frameRate: Double, period: Double, estimator: TempoEstimator, impulsiveShare: Float
    ) -> [TempoRegimes.Change] {
        let settings = configuration.beats
        guard settings.tempoRegimeChange > 1, frameRate > 0, impulsiveShare >= settings.tempoRegimeTexture else { return [] }
        let length = Int((settings.tempoRegimeWindowSeconds * frameRate).rounded())
        let hop = max(1, length / 4)
        guard length > 0, curve.count >= length + hop else { return [] }
        var local: [Double?] = []
        var start = 0
        while start + length <= curve.count {
            local.append(estimator.estimate(Array(curve[start..<(start + length)]), frameRate: frameRate)?.period)
            start += hop
        }
        return TempoRegimes(settings: settings).changes(local: local, hop: hop, length: length, period: period, frameRate: frameRate)
    }
}
