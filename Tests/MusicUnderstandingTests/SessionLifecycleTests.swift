import Foundation
import Synchronization
import Testing
@testable import MusicUnderstanding

/// A provider whose every iteration is a fresh stream, as a live source re-opened per run:
/// iteration `k` (from 0) delivers `seconds[k]` of stereo sine at 48 kHz (`nil` = endless),
/// each buffer 100 ms, after `gate` (if any) opens.
struct ReplayProvider: AsyncSequence, Sendable {
    typealias Element = PCMBuffer?
    typealias Failure = Never

    let seconds: [Double?]
    let iteration = Counter()
    var gate: Gate?
    var onEnd: (@Sendable () -> Void)?

    final class Counter: Sendable {
        private let value = Locked(0)
        func next() -> Int {
            value.withLock { v in
                defer { v += 1 }; return v
            }
        }
        /// The iterations begun so far (a run has started reading the provider once this grows).
        var begun: Int { value.withLock { $0 } }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: Int?
        var gate: Gate?
        var onEnd: (@Sendable () -> Void)?
        var ended = false
        let buffer = PCMBuffer(sampleRate: 48_000, channelCount: 2, samples: TestSignal.stereoSine(seconds: 0.1))

        mutating func next() async -> PCMBuffer?? {
            if let gate { await gate.wait(); self.gate = nil }
            if ended { return .some(nil) }
            if let r = remaining {
                if r == 0 { ended = true; onEnd?(); return .some(nil) }
                remaining = r - 1
            } else {
                await Task.yield()
            }
            return .some(buffer)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        let k = iteration.next()
        let s = k < seconds.count ? seconds[k] : 1
        return AsyncIterator(remaining: s.map { Int(($0 * 10).rounded()) }, gate: gate, onEnd: onEnd)
    }
}

/// A one-shot latch tasks can wait on.
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    func open() {
        let waiters = state.withLock { s in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume() }
    }
    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s in
                if s.open { return true }
                s.waiters.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }
}

/// Waits until `condition` holds (polling; no deadline, so a loaded machine delays the test
/// instead of failing it).
func eventually(_ condition: () -> Bool) async throws {
    await EventCounter.poll(condition)
}

/// Collects every loudness time one iteration of `loudnessResults` sees, and how it ended.
func consume(_ session: MusicUnderstandingSession) -> Task<(times: [Double], error: AnalysisError?), Never> {
    Task {
        var times: [Double] = []
        do {
            for try await loud in session.loudnessResults { times.append(loud.momentary.last?.time ?? -1) }
            return (times, nil)
        } catch {
            return (times, error as? AnalysisError)
        }
    }
}

/// The session as a Swift user porting from Apple's framework drives it: several consumers,
/// several runs, cancellation at every stage.
@Suite struct SessionLifecycleTests {
    static let expectedTimes = (1...20).map { Double($0) / 10 }

    @Test func twoConcurrentConsumersEachGetEveryResult() async throws {
        let gate = Gate()
        let session = MusicUnderstandingSession(audioProvider: ReplayProvider(seconds: [2], gate: gate))
        let run = Task { try await session.analyze(for: [.loudness]) }
        try await eventually { session.loudnessSubscriberCount.current == 0 && true }
        let a = consume(session), b = consume(session)
        try await eventually { session.loudnessSubscriberCount.current + session.loudnessSubscriberCount.next == 2 }
        gate.open()
        _ = try await run.value
        let (ra, rb) = (await a.value, await b.value)
        #expect(ra.error == nil && rb.error == nil)
        #expect(zip(ra.times, Self.expectedTimes).allSatisfy { abs($0 - $1) < 1e-9 } && ra.times.count == 20)
        #expect(rb.times.count == 20 && ra.times == rb.times)
    }

    @Test func everyRunStreamsAndOnlyItsOwnResults() async throws {
        let session = MusicUnderstandingSession(audioProvider: ReplayProvider(seconds: [2, 1]))
        // Nobody listens to the first run: nothing is kept for a later consumer.
        _ = try await session.analyze(for: [.loudness])
        #expect(session.loudnessSubscriberCount == (0, 0))
        let consumer = consume(session)
        try await eventually { session.loudnessSubscriberCount.next == 1 }
        let second = try await session.analyze(for: [.loudness])
        let seen = await consumer.value
        #expect(seen.error == nil)
        #expect(seen.times.count == 10, "the second run (1 s) gives 10 steps, got \(seen.times.count)")
        #expect(second.source?.duration == 1)
    }

    /// An iterator made before the run subscribes to it, however late its consumer starts: made
    /// before `analyze` and read only after the run has ended, it still yields every step (what
    /// `cadenza meter` relies on, so that a printer task scheduled late loses no line).
    @Test func iteratorMadeBeforeTheRunGetsEveryStepWhenReadLate() async throws {
        let session = MusicUnderstandingSession(audioProvider: ReplayProvider(seconds: [2]))
        var steps = session.loudnessResults.makeAsyncIterator()
        #expect(session.loudnessSubscriberCount == (0, 1))
        _ = try await session.analyze(for: [.loudness])
        var times: [Double] = []
        while let step = try await steps.next() { times.append(step.momentary.last?.time ?? -1) }
        #expect(times.count == 20 && zip(times, Self.expectedTimes).allSatisfy { abs($0 - $1) < 1e-9 }, "\(times)")
    }

    @Test func cancelledRunLeavesNoStaleResultsForTheNext() async throws {
        let session = MusicUnderstandingSession(audioProvider: ReplayProvider(seconds: [nil, 1]))
        let first = consume(session)
        try await eventually { session.loudnessSubscriberCount.next == 1 }
        let run = Task { try await session.analyze(for: [.loudness]) }
        try await eventually { session.loudnessSubscriberCount.current == 1 }
        await session.cancel()
        await #expect(throws: AnalysisError.cancelled) { try await run.value }
        let firstSeen = await first.value
        #expect(firstSeen.error == .cancelled)
        let second = consume(session)
        try await eventually { session.loudnessSubscriberCount.next == 1 }
        _ = try await session.analyze(for: [.loudness])
        let secondSeen = await second.value
        #expect(secondSeen.error == nil)
        #expect(secondSeen.times == Array(Self.expectedTimes.prefix(10)), "\(secondSeen.times)")
    }

    @Test func cancelAfterDecodingStopsTheAnalysis() async throws {
        let decoded = Gate()
        // 60 s of audio through key and rhythm: seconds of analysis in a debug build.
        let provider = ReplayProvider(seconds: [60], onEnd: { decoded.open() })
        let session = MusicUnderstandingSession(audioProvider: provider)
        let run = Task { try await session.analyze(for: [.key, .rhythm]) }
        await decoded.wait()
        await session.cancel()
        // No clock: had the analysis not stopped, the run would return its result instead of throwing.
        await #expect(throws: AnalysisError.cancelled) { try await run.value }
    }

    @Test func cancelWhileTheProviderWaits() async throws {
        let never = Gate()
        let provider = ReplayProvider(seconds: [1], gate: never)
        let session = MusicUnderstandingSession(audioProvider: provider)
        let run = Task { try await session.analyze(for: [.loudness]) }
        await EventCounter.poll { provider.iteration.begun == 1 }  // the run is waiting on the provider
        await session.cancel()
        // No clock: the gate opens only after this line, so a run that ignored cancel() would hang.
        await #expect(throws: AnalysisError.cancelled) { try await run.value }
        never.open()
    }

    @Test func taskCancellationCancelsTheRun() async throws {
        let provider = ReplayProvider(seconds: [nil])
        let session = MusicUnderstandingSession(audioProvider: provider)
        let run = Task { try await session.analyze(for: [.loudness]) }
        await EventCounter.poll { provider.iteration.begun == 1 }  // the endless input is being read
        run.cancel()
        await #expect(throws: AnalysisError.cancelled) { try await run.value }
    }

    @Test func cancelBeforeAnyRunCancelsOnlyTheNextRun() async throws {
        let session = MusicUnderstandingSession(audioProvider: ReplayProvider(seconds: [1, 1]))
        await session.cancel()
        await #expect(throws: AnalysisError.cancelled) { try await session.analyze(for: [.loudness]) }
        let result = try await session.analyze(for: [.loudness])
        #expect(result.loudness != nil)
    }

    @Test func cancelDuringFileDecodingAndAnalysis() async throws {
        // A 40-second WAV: decoding and analysis take long enough to cancel in flight.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-cancel-\(UUID().uuidString).wav")
        try WAVFile.write(TestSignal.stereoSine(frequency: 220, amplitude: 0.3, seconds: 40, rate: 44_100), rate: 44_100, to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let session = try await MusicUnderstandingSession(url: url)
        let run = Task { try await session.analyze() }
        // A head start, not synchronisation: whether cancel() lands before the run begins (it then
        // cancels that run) or during decoding or analysis, the run must throw `cancelled`; a run
        // that ignored it would return its result. No clock is asserted.
        await Task.yield()
        await session.cancel()
        await #expect(throws: AnalysisError.cancelled) { try await run.value }
        // The session is usable again afterwards.
        let again = try await session.analyze(for: [.loudness])
        #expect(abs((again.source?.duration ?? 0) - 40) < 1e-6)
    }

    @Test func metadataComesWithTheResult() async throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures")
        let good = try await MusicUnderstandingSession(url: fixtures.appendingPathComponent("tone_2s_stereo.flac")).analyze(for: [.loudness])
        #expect(good.source?.codec == "flac" && good.source?.channels == 2)
        #expect(abs((good.source?.duration ?? 0) - 2) < 0.01)
        #expect(good.warning == nil)
        let cut = try await MusicUnderstandingSession(url: fixtures.appendingPathComponent("truncated.mp3")).analyze(for: [.loudness])
        #expect(cut.warning != nil)
    }

    /// `import MusicUnderstanding` must leave `Swift.DecodingError` usable unqualified.
    @Test func swiftDecodingErrorIsNotShadowed() {
        do {
            _ = try JSONDecoder().decode(Report.self, from: Data("not json".utf8))
            Issue.record("expected a decoding error")
        } catch DecodingError.dataCorrupted {
            // The Swift standard library's error, caught by its unqualified name.
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

/// The feature graph: what runs for a request, and configuration reaching the analyses.
@Suite struct FeatureGraphTests {
    @Test func planRunsDependenciesFirstAndOnlyWhatIsNeeded() throws {
        let key = try AnalysisRegistry.plan(for: [.key]).map { $0.type }
        #expect(key == [.rhythm, .key])
        #expect(try AnalysisPipeline(types: [.loudness]).features == [.loudness])
        // Rhythm reads harmonic change from the one shared chroma and drums from the
        // harmonic/percussive separation; key builds on rhythm.
        #expect(try AnalysisPipeline(types: [.rhythm]).features == [.onset, .chroma, .harmonicPercussive])
        #expect(try AnalysisPipeline(types: [.key]).features == [.onset, .chroma, .harmonicPercussive])
        #expect(!(try AnalysisPipeline(types: [.rhythm, .loudness]).features.contains(.melBands)))
        #expect(AnalysisType.available == Set(AnalysisRegistry.stages.map { $0.type }))
    }

    @Test func dependencyResultsAreNotReportedUnlessAsked() async throws {
        let samples = TestSignal.stereoSine(frequency: 440, seconds: 4)
        let session = MusicUnderstandingSession(audioProvider: TestSignal.provider(TestSignal.buffers(samples)))
        let result = try await session.analyze(for: [.key])
        #expect(result.key != nil)
        #expect(result.rhythm == nil && result.loudness == nil)
    }

    @Test func configurationReachesTheAnalyses() async throws {
        // A click track in 4/4 (accented downbeat); restricted to 3 beats per bar, the meter is 3.
        let rate = 44_100.0
        var mono = [Float](repeating: 0, count: Int(12 * rate))
        for beat in 0..<24 {
            let start = Int(Double(beat) * 0.5 * rate)
            let gain: Float = beat % 4 == 0 ? 0.9 : 0.4
            for i in 0..<min(400, mono.count - start) { mono[start + i] += gain * Float(sin(Double(i) * 0.7)) * Float(400 - i) / 400 }
        }
        let stereo = mono.flatMap { [$0, $0] }
        var configuration = AnalysisConfiguration()
        configuration.rhythm.downbeats.meters = [3]
        let session = MusicUnderstandingSession(
            audioProvider: TestSignal.provider(TestSignal.buffers(stereo, rate: rate, frames: 4410)),
            configuration: configuration)
        let result = try await session.analyze(for: [.rhythm])
        #expect(result.rhythm?.beatsPerBar == 3)
        let plain = MusicUnderstandingSession(audioProvider: TestSignal.provider(TestSignal.buffers(stereo, rate: rate, frames: 4410)))
        #expect(try await plain.analyze(for: [.rhythm]).rhythm?.beatsPerBar == 4)
    }
}
