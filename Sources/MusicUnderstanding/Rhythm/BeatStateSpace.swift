import Foundation

extension BeatTracker {
    /// The state space and transition model of one decoding (Krebs, Böck & Widmer 2015, secs.
    /// 2.2-2.4), shared by every decoder of the same settings: the periods, the layout of one ring
    /// per period, the log transition probabilities of a period change stored as contiguous
    /// columns per target period, and the beat-state half widths.
    struct StateSpace {
        /// The beat periods, frames (`lo...hi`).
        let periods: [Int]
        /// Start of each period's ring in a buffer of ``ringSize`` values (ring `j` has `periods[j]` slots).
        let offsets: [Int]
        /// Total slots of the rings, `Σ periods`.
        let ringSize: Int
        /// The first allowed source of each target period (its column's first finite entry).
        let fromLo: [Int]
        /// Start of each target's column in ``columns`` (`periods.count + 1` values).
        let columnStart: [Int]
        /// Log transition from source `fromLo[j] + k` to target `j` at `columns[columnStart[j] + k]`.
        let columns: [Double]
        /// Beat states at each end of a beat, `round(τ / observationLambda)`, at least 1.
        let beatWidth: [Int]

        /// The model for periods `lo...hi` (`2 ≤ lo ≤ hi`), the tempo prior centred on
        /// `centrePeriod` with weight `priorWeight`.
        init(lo: Int, hi: Int, centrePeriod: Double, priorWeight: Double, settings: RhythmAnalyzer.Configuration.BeatSettings) {
            let periods = Array(lo...hi)
            let m = periods.count
            self.periods = periods
            var offsets = [Int](repeating: 0, count: m)
            var total = 0
            for j in 0..<m { offsets[j] = total; total += periods[j] }
            self.offsets = offsets
            ringSize = total
            // Log transition between periods at a beat boundary.
            let lambda = settings.transitionLambda
            let maxChange = settings.maximumPeriodChange
            var logTrans = [Double](repeating: -.infinity, count: m * m)  // [from * m + to]
            for i in 0..<m {
                var sum = 0.0
                var row = [Double](repeating: 0, count: m)
                for j in 0..<m {
                    let ratio = Double(periods[j]) / Double(periods[i])
                    if abs(ratio - 1) <= maxChange { row[j] = exp(-lambda * abs(ratio - 1)) }
                    sum += row[j]
                }
                for j in 0..<m where row[j] > 0 {
                    // Tempo prior: a log-Gaussian around the global period, so that the tracker
                    // follows gradual changes but does not settle on a metrically related level.
                    let octaves = log2(Double(periods[j]) / max(1, centrePeriod))
                    logTrans[i * m + j] = log(row[j] / sum) - priorWeight * octaves * octaves
                }
            }
            // The allowed sources of each target period (the finite entries of its column,
            // `fromLo[j]` onwards), stored contiguously per target for the maximisation.
            var fromLo = [Int](repeating: 0, count: m), columnStart = [Int](repeating: 0, count: m + 1)
            var columns: [Double] = []
            for j in 0..<m {
                var first = m, last = -1
                for i in 0..<m where logTrans[i * m + j].isFinite { first = min(first, i); last = max(last, i) }
                if first > last { (first, last) = (j, j) }
                fromLo[j] = first
                for i in first...last { columns.append(logTrans[i * m + j]) }
                columnStart[j + 1] = columns.count
            }
            self.fromLo = fromLo
            self.columnStart = columnStart
            self.columns = columns
            beatWidth = periods.map { max(1, Int((Double($0) / settings.observationLambda).rounded())) }
        }

        /// The beat frames of the best path, read back from its last state (period index `j`,
        /// position `position` at frame `frames − 1`): positions count down to 0 (a beat), then
        /// `back[t * periods.count + j]`, the back-pointer of a beat at frame `t`, names the period
        /// of the beat before it.
        func beats(endingIn j: Int, position: Int, frames n: Int, back: [UInt8]) -> [Int] {
            let m = periods.count
            var beats: [Int] = []
            var j = j, phi = position
            var t = n - 1
            while t >= 0 {
                if phi == 0 {
                    beats.append(t)
                    if t == 0 { break }
                    j = Int(back[t * m + j])
                    phi = periods[j] - 1
                } else {
                    phi -= 1
                }
                t -= 1
            }
            return beats.reversed()
        }
    }

    /// The state space for a decoding with beat periods between `minPeriod` and `maxPeriod`
    /// frames (at most 251 periods), or `nil` when `frames` do not exceed the longest period.
    func stateSpace(frames: Int, minPeriod: Int, maxPeriod: Int, centrePeriod: Double) -> StateSpace? {
        let lo = max(2, minPeriod), hi = min(max(lo, maxPeriod), lo + 250)
        guard frames > hi else { return nil }
        return StateSpace(lo: lo, hi: hi, centrePeriod: centrePeriod, priorWeight: periodPriorWeight, settings: settings)
    }

    /// The beat states of one period: positions `0..<width` and `max(width, period − width)..<period`
    /// (Krebs 2015, sec. 2.4), or every position `width / period` times and the first
    /// `width mod period` once more when the window is wider than the period.
    struct BeatStates {
        /// Times every position counts.
        let repeats: Double
        /// Positions `0..<head` count once (more).
        let head: Int
        /// Positions `tail..<period` count once (`period` when none do).
        let tail: Int

        /// The beat states of `period` frames with half width `width`.
        init(period: Int, width: Int) {
            if width < period {
                repeats = 0
                head = width
                tail = max(width, period - width)
            } else {
                repeats = Double(width / period)
                head = width % period
                tail = period
            }
        }

        /// The observation summed over the beat states of positions `0...position` of the beat
        /// that starts at frame `start`, from the cumulative ratios `c` (frames before the first
        /// count nothing).
        @inline(__always)
        func sum(_ c: UnsafeBufferPointer<Double>, start: Int, through position: Int) -> Double {
            @inline(__always) func at(_ x: Int) -> Double { x <= 0 ? 0 : c[x] }
            let base = at(start)
            var s = at(start + min(position + 1, head)) - base
            if position >= tail { s += at(start + position + 1) - at(start + tail) }
            if repeats > 0 { s += repeats * (at(start + position + 1) - base) }
            return s
        }
    }
}
