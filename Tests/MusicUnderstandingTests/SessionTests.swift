import Foundation
import Testing
@testable import MusicUnderstanding

@Suite struct SessionTests {
    @Test func everyAnalysisIsAvailableAndAnalyzeFillsAllSix() async throws {
        #expect(AnalysisType.available == Set(AnalysisType.allCases))
        #expect(AnalysisError.unavailable(.rhythm).description == "rhythm analysis is not available in this version")
        let samples = TestSignal.stereoSine(frequency: 440, seconds: 3)
        let result = try await MusicUnderstandingSession(audioProvider: TestSignal.provider(TestSignal.buffers(samples))).analyze()
        #expect(result.key != nil && result.rhythm != nil && result.structure != nil)
        #expect(result.pace != nil && result.instrumentActivity != nil && result.loudness != nil)
    }

    @Test func missingFileNamesTheFile() async throws {
        do {
            _ = try await MusicUnderstandingSession(url: URL(fileURLWithPath: "/nonexistent/x.mp3"))
            Issue.record("expected an error")
        } catch let error as AnalysisError {
            #expect(error == .decoding(.fileNotFound(path: "/nonexistent/x.mp3")))
            #expect(error.description.contains("/nonexistent/x.mp3"))
        }
    }

    @Test func emptyProviderIsZeroLength() async throws {
        let session = MusicUnderstandingSession(audioProvider: TestSignal.provider([]))
        await #expect(throws: AnalysisError.decoding(.zeroLength(path: "<audio provider>"))) {
            try await session.analyze(for: [.loudness])
        }
    }

    @Test func requestedFieldsOnly() async throws {
        let session = MusicUnderstandingSession(audioProvider: TestSignal.provider(TestSignal.buffers(TestSignal.stereoSine(seconds: 2))))
        let result = try await session.analyze(for: [.loudness])
        #expect(result.loudness != nil)
        #expect(result.rhythm == nil && result.key == nil && result.structure == nil)
        let source = try #require(result.source)
        #expect(source.duration == 2.0)
        #expect(source.channels == 2)
    }

    @Test func loudnessStreamsOneResultPer100ms() async throws {
        let session = MusicUnderstandingSession(audioProvider: TestSignal.provider(TestSignal.buffers(TestSignal.stereoSine(seconds: 3), frames: 1234)))
        let collector = Task { () -> [LoudnessResult] in
            var all: [LoudnessResult] = []
            for try await r in session.loudnessResults { all.append(r) }
            return all
        }
        let result = try await session.analyze(for: [.loudness])
        let streamed = try await collector.value
        #expect(streamed.count == 30)
        #expect(streamed.map(\.integrated.time) == (1...30).map { Double($0) / 10 })
        // The last streamed step agrees with the final result.
        if let last = streamed.last, let final = result.loudness {
            #expect(abs(last.integrated.value - final.integrated.value) < 0.01)
        }
    }

    @Test func cancelStopsAnalysis() async throws {
        // An endless provider: only cancel() can end the analysis.
        let endless = AsyncStream<PCMBuffer?> { c in
            let buffer = PCMBuffer(sampleRate: 48_000, channelCount: 2, samples: TestSignal.stereoSine(seconds: 0.1))
            let task = Task {
                while !Task.isCancelled {
                    c.yield(buffer)
                    await Task.yield()
                }
            }
            c.onTermination = { _ in task.cancel() }
        }
        let session = MusicUnderstandingSession(audioProvider: endless)
        let run = Task { try await session.analyze(for: [.loudness]) }
        // No sleep needed: the input is endless, so whether cancel() lands before the run begins
        // (it then cancels that run) or while it analyses, only cancellation can end it.
        await Task.yield()
        await session.cancel()
        await #expect(throws: AnalysisError.cancelled) { try await run.value }
    }

    @Test func providerFormatChangeIsAnError() async throws {
        let a = PCMBuffer(sampleRate: 48_000, channelCount: 2, samples: [Float](repeating: 0, count: 9600))
        let b = PCMBuffer(sampleRate: 44_100, channelCount: 2, samples: [Float](repeating: 0, count: 8820))
        let session = MusicUnderstandingSession(audioProvider: TestSignal.provider([a, b]))
        await #expect(throws: AnalysisError.self) { try await session.analyze(for: [.loudness]) }
    }
}

@Suite struct BatchRunnerTests {
    @Test func discoveryFindsAudioAndSkipsSidecars() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-discovery-\(UUID().uuidString)")
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        for name in ["a.mp3", "a.mp3.json", "a.mp3.truth.json", "cover.jpg", ".hidden.wav", "sub/b.flac", "notes.dat", "playlist.m3u"] {
            try Data("x".utf8).write(to: dir.appendingPathComponent(name))
        }
        let found = InputDiscovery().inputs(from: [dir.path, "/no/such/file.wav"]).map {
            $0.hasPrefix(dir.path) ? String($0.dropFirst(dir.path.count + 1)) : $0
        }
        #expect(found == ["a.mp3", "notes.dat", "sub/b.flac", "/no/such/file.wav"])
    }

    @Test func batchGivesOneRecordPerInputAndGoesOn() async throws {
        let runner = BatchRunner(types: [.loudness], jobs: 2)
        let collected = Collected()
        await runner.run(inputs: ["/no/such/a.wav", "/no/such/b.mp3"]) { report in await collected.add(report) }
        let reports = await collected.reports
        #expect(reports.count == 2)
        #expect(reports.allSatisfy { $0.error?.code == "fileNotFound" })
        let validator = try SchemaValidator.reportSchema()
        for r in reports { #expect(validator.validate(r.jsonLine()).isEmpty) }
    }
}

actor Collected {
    var reports: [Report] = []
    func add(_ r: Report) { reports.append(r) }
}

@Suite struct DeviceInputTests {
    /// libavdevice's virtual `lavfi` device stands in for a sound card: the same code path as
    /// `alsa:default` or `pulse:default`, without hardware.
    @Test func lavfiDeviceIsMetered() async throws {
        #expect(AudioDecoder.isDevice("lavfi:sine=f=1000:d=1"))
        #expect(!AudioDecoder.isDevice("notadevice:x"))
        let session = try MusicUnderstandingSession(path: "lavfi:sine=f=1000:d=1")
        let result = try await session.analyze(for: [.loudness])
        let source = try #require(result.source)
        #expect(abs((source.duration ?? 0) - 1.0) < 0.01)
        // lavfi's sine has amplitude 1/8: -18.06 dBFS peak, mono => about -21.1 LUFS.
        let integrated = result.loudness?.integrated.value ?? 0
        #expect(abs(integrated - (-21.07)) < 0.1)
    }

    /// A device path is opened as a device even when this FFmpeg cannot open that device (the
    /// Debian build has no `sndio`): the error names the path and is not a missing file.
    @Test func unavailableDeviceIsNotAMissingFile() {
        #expect(AudioDecoder.isDevice("sndio:default"))
        do {
            _ = try AudioDecoder(path: "sndio:default")
            Issue.record("sndio:default opened")
        } catch {
            #expect(error.path == "sndio:default")
            if case .fileNotFound = error { Issue.record("read as a missing file: \(error)") }
        }
    }
}

@Suite struct DamagedSampleTests {
    /// NaN and infinite samples (a broken provider or decoder) give a valid report, not NaN times.
    @Test func nonFiniteSamplesGiveAValidReport() async throws {
        var samples = TestSignal.stereoSine(frequency: 440, seconds: 6, rate: 44_100)
        for i in stride(from: 0, to: samples.count, by: 997) { samples[i] = .nan }
        for i in stride(from: 5, to: samples.count, by: 4001) { samples[i] = .infinity }
        let session = MusicUnderstandingSession(audioProvider: TestSignal.provider(TestSignal.buffers(samples, rate: 44_100, frames: 4410)))
        let result = try await session.analyze(for: [.key, .rhythm, .loudness])
        let report = Report(source: SourceInfo(path: "nan"), result: result)
        #expect(try SchemaValidator.reportSchema().validate(report.jsonLine()).isEmpty)
        #expect(result.rhythm?.beats.allSatisfy(\.isFinite) == true)
    }
}
