import Foundation
import Testing
@testable import MusicUnderstanding

/// A program's own input: a 440 Hz tone over a 2 Hz click train, handed out in chunks.
final class ToneSource: PCMSource, @unchecked Sendable {
    let samples: [Float]
    let chunk = 4096
    var position = 0
    var source: SourceInfo { SourceInfo(path: "tone", sampleRate: 44_100, channels: 1, codec: "test") }
    var damageNote: String? { nil }

    init(seconds: Double) {
        let rate = 44_100.0
        samples = (0..<Int(seconds * rate)).map { i in
            let t = Double(i) / rate
            let click = t.truncatingRemainder(dividingBy: 0.5) < 0.01 ? 0.5 : 0
            return Float(0.2 * sin(2 * .pi * 440 * t) + click)
        }
    }

    func read() -> PCMBuffer? {
        guard position < samples.count else { return nil }
        let end = min(samples.count, position + chunk)
        defer { position = end }
        return PCMBuffer(sampleRate: 44_100, channelCount: 1, samples: Array(samples[position..<end]))
    }
}

/// The seams a newcomer extends: the input (``PCMSource``), the feature registry, the
/// declared-only analysis context and the report written by walking the analysis registry.
@Suite struct SeamTests {
    @Test func anyPCMSourceDrivesTheSamePipelineAsTheSession() async throws {
        let analyzer = FileAnalyzer(types: [.loudness, .rhythm, .key])
        let viaSource = try analyzer.analyze(ToneSource(seconds: 8))
        #expect(viaSource.source?.path == "tone")
        #expect(abs((viaSource.source?.duration ?? 0) - 8) < 1e-6)
        let tone = ToneSource(seconds: 8)
        var buffers: [PCMBuffer] = []
        while let b = tone.read() { buffers.append(b) }
        let provided = buffers
        let stream = AsyncStream<PCMBuffer?> { c in
            for b in provided { c.yield(b) }
            c.yield(nil)
            c.finish()
        }
        let viaSession = try await MusicUnderstandingSession(audioProvider: stream, configuration: .init())
            .analyze(for: [.loudness, .rhythm, .key])
        #expect(viaSession.rhythm?.beats == viaSource.rhythm?.beats)
        #expect(viaSession.loudness?.integrated.value == viaSource.loudness?.integrated.value)
        #expect(viaSession.key?.ranges.first?.value == viaSource.key?.ranges.first?.value)
    }

    @Test func anEmptySourceIsAZeroLengthError() {
        let analyzer = FileAnalyzer(types: [.loudness])
        #expect(throws: AnalysisError.self) { try analyzer.analyze(ToneSource(seconds: 0)) }
    }

    @Test func featureRegistryStartsOnlyRequestedExtractors() {
        let settings = AnalysisConfiguration()
        let onlyMFCC = FeatureStage(features: [.mfcc], configuration: settings)
        onlyMFCC.append([Float](repeating: 0.1, count: 22_050))
        let features = onlyMFCC.finish(duration: 1)
        #expect(features.mel != nil)
        #expect(features.mel?.bands.isEmpty == true, "mfcc alone keeps no mel bands")
        #expect(features.onset == nil && features.chroma == nil && features.harmonicPercussive == nil)
        // Every Feature key is served by exactly one definition.
        for feature in Feature.allCases {
            #expect(FeatureRegistry.all.filter { $0.serves.contains(feature) }.count == 1, "\(feature)")
        }
    }

    @Test func keepOnlyDropsEveryUndeclaredFeature() {
        var features = SharedFeatures(
            duration: 1, onset: nil, chroma: nil,
            loudness: LoudnessResult.ofNoAudio)
        features.keepOnly([.chroma])
        #expect(features.loudness == nil)
    }

    @Test func reportMembersAreTheRegisteredAnalyses() throws {
        let result = try FileAnalyzer(types: AnalysisType.available).analyze(ToneSource(seconds: 6))
        let report = Report(source: result.source ?? SourceInfo(path: "tone"), result: result)
        let parsed = try JSONSerialization.jsonObject(with: report.jsonLine())
        let object = try #require(parsed as? [String: Any])
        let analyses = Set(object.keys).subtracting(["analyzer", "error", "schemaVersion", "source", "warning"])
        #expect(analyses == Set(AnalysisRegistry.stages.map { $0.type.rawValue }))
        let back = try JSONLineDecoder().decode(Report.self, from: report.jsonLine())
        #expect(back.jsonLine() == report.jsonLine())
    }
}
