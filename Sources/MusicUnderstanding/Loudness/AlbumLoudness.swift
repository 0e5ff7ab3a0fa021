import Foundation

/// The loudness of an album as ReplayGain 2.0 defines it: the integrated loudness of all its
/// tracks' gating blocks taken together (ITU-R BS.1770-4 §2.7–2.8 gating over the union of the
/// blocks, not a mean of the tracks' values), and the largest of the tracks' peaks.
///
/// The blocks come from each track's report: its momentary series holds the loudness of every
/// full 400 ms window at 100 ms steps (75 % overlap), which are exactly the track's gating
/// blocks. Memory is one constant-size ``LoudnessHistogram`` whatever the album's length.
///
/// ```swift
/// var album = AlbumLoudness()
/// for report in reports { if let loudness = report.result?.loudness { _ = album.add(loudness) } }
/// let gain = TagWriter.replayGainReference - album.integrated   // REPLAYGAIN_ALBUM_GAIN, dB
/// ```
public struct AlbumLoudness: Sendable {
    private var blocks = LoudnessHistogram()
    /// The largest sample peak of the tracks added, dBFS.
    public private(set) var samplePeak = -Double.infinity
    /// The largest true peak of the tracks added, dBTP.
    public private(set) var truePeak = -Double.infinity
    /// Tracks added.
    public private(set) var trackCount = 0

    /// An empty album.
    public init() {}

    /// Adds one track's gating blocks and peaks. Returns false (and adds nothing) when the track's
    /// loudness has no momentary series to take the blocks from (a report of a meter that kept no
    /// series) while it does have an integrated loudness.
    @discardableResult
    public mutating func add(_ loudness: LoudnessResult) -> Bool {
        let hasSeries = !loudness.momentary.isEmpty
        if !hasSeries, loudness.integrated.value.isFinite { return false }
        // A block exists once its 400 ms window is full: steps from 0.4 s on (the meter's rule).
        for step in loudness.momentary where step.time >= Self.firstBlockEnd - 1e-9 && step.value.isFinite {
            blocks.insert(energy: LoudnessScale.energy(ofLoudness: Double(step.value)))
        }
        if loudness.peak.value.isFinite { samplePeak = max(samplePeak, Double(loudness.peak.value)) }
        if loudness.truePeak.isFinite { truePeak = max(truePeak, Double(loudness.truePeak)) }
        trackCount += 1
        return true
    }

    /// End of the first gating block, seconds (one 400 ms window).
    static let firstBlockEnd = 0.4

    /// Integrated loudness of the album, LUFS; minus infinity when no block passes the gates.
    public var integrated: Double { blocks.integratedLoudness() }
}
