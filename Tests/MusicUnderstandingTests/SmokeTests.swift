import Testing
@testable import MusicUnderstanding

@Test func unavailableAnalysisThrows() async throws {
    let stream = AsyncStream<PCMBuffer?> { c in c.yield(nil); c.finish() }
    let session = MusicUnderstandingSession(audioProvider: stream)
    await #expect(throws: AnalysisError.unavailable(.structure)) {
        try await session.analyze(for: [.structure])
    }
}
