import Foundation

/// Running totals of a ``BatchJob`` for progress displays: inputs done out of the total,
/// failures, kept reports, audio analysed per wall-clock time and an estimate of the time left.
/// Feed it every ``BatchEvent``; the CLI's bar and periodic lines are drawn from it.
///
/// The estimate is by bytes: time so far × bytes of inputs still to analyse / bytes analysed, so a
/// catalog of mixed lengths gets a fair ETA once a few inputs are done.
public struct BatchProgress: Sendable {
    /// Inputs of the job.
    public private(set) var total: Int
    /// Inputs finished (analysed now or kept as current).
    public private(set) var done = 0
    /// Finished inputs that failed (including kept error records).
    public private(set) var failed = 0
    /// Inputs whose current report was kept.
    public private(set) var skipped = 0
    /// Seconds of audio analysed in this run.
    public private(set) var audioSeconds = 0.0
    /// Name of the input finished last.
    public private(set) var lastPath: String?
    /// When analysis started (after the plan).
    public private(set) var started: Date
    private var sizes: [String: Int64] = [:]
    private var bytesPending: Int64 = 0
    private var bytesDone: Int64 = 0

    /// Progress of a job with `total` inputs, starting now.
    public init(total: Int, now: Date = Date()) {
        self.total = total
        started = now
    }

    /// Takes `event` into account. ``BatchEvent/planned(_:)`` reads the sizes of the inputs to analyse.
    public mutating func record(_ event: BatchEvent, now: Date = Date()) {
        switch event {
        case .planned(let plan):
            started = now
            done += plan.current.count
            skipped += plan.current.count
            failed += plan.currentFailed.count
            for path in plan.pending {
                let size = max(1, FileStamp.of(path: path)?.size ?? 1)
                sizes[path] = size
                bytesPending += size
            }
        case .inputFinished(let path, let report, _):
            done += 1
            if event.isFailure { failed += 1 }
            if let duration = report.source.duration, duration.isFinite { audioSeconds += duration }
            let size = sizes.removeValue(forKey: path) ?? 0
            bytesDone += size
            bytesPending -= size
            lastPath = path
        }
    }

    /// Wall-clock seconds since analysis started.
    public func elapsed(now: Date = Date()) -> Double { max(0, now.timeIntervalSince(started)) }

    /// Hours of audio analysed per hour of wall-clock time (= × real time for the whole batch);
    /// nil before anything was analysed.
    public func audioHoursPerWallHour(now: Date = Date()) -> Double? {
        let wall = elapsed(now: now)
        return audioSeconds > 0 && wall > 0 ? audioSeconds / wall : nil
    }

    /// Fraction of the work to do in this run that is done, by bytes (1 when nothing is to do).
    public var fraction: Double {
        let all = bytesDone + bytesPending
        return all > 0 ? Double(bytesDone) / Double(all) : 1
    }

    /// Estimated seconds until the batch ends; nil until something was analysed.
    public func secondsLeft(now: Date = Date()) -> Double? {
        guard bytesDone > 0 else { return bytesPending == 0 && done == total ? 0 : nil }
        return elapsed(now: now) * Double(max(0, bytesPending)) / Double(bytesDone)
    }
}
