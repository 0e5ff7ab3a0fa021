/// A speaker position of one channel of audio.
///
/// The position decides the channel's weight in loudness measurement (ITU-R BS.1770-4, Table 3):
/// front channels 1.0, surround channels 1.41, the LFE channel excluded.
public enum AudioChannel: String, Sendable, Hashable, Codable {
    /// Front left, right and centre (weighted 1.0) and the low-frequency effects channel (excluded).
    case frontLeft, frontRight, frontCenter, lowFrequency
    /// Surround channels behind or beside the listener (weighted 1.41).
    case backLeft, backRight, sideLeft, sideRight, backCenter
    /// Front channels between the centre and the sides (weighted 1.0).
    case frontLeftOfCenter, frontRightOfCenter
    /// A height channel (weighted 1.0).
    case topOrHeight
    /// A second low-frequency effects channel (excluded).
    case lowFrequency2
    /// A channel without a known position (weighted 1.0).
    case unknown

    /// BS.1770-4 channel weight G_i.
    public var loudnessWeight: Float {
        switch self {
        case .lowFrequency, .lowFrequency2: 0
        case .backLeft, .backRight, .sideLeft, .sideRight: 1.41
        default: 1
        }
    }

    /// A default layout for a channel count: mono, stereo, ... 5.1 and 7.1 in the SMPTE/FFmpeg order.
    public static func defaultLayout(channelCount: Int) -> [AudioChannel] {
        switch channelCount {
        case 1: [.frontCenter]
        case 2: [.frontLeft, .frontRight]
        case 3: [.frontLeft, .frontRight, .frontCenter]
        case 4: [.frontLeft, .frontRight, .backLeft, .backRight]
        case 5: [.frontLeft, .frontRight, .frontCenter, .backLeft, .backRight]
        case 6: [.frontLeft, .frontRight, .frontCenter, .lowFrequency, .backLeft, .backRight]
        case 8: [.frontLeft, .frontRight, .frontCenter, .lowFrequency, .backLeft, .backRight, .sideLeft, .sideRight]
        default: Array(repeating: .unknown, count: max(0, channelCount))
        }
    }
}

/// A block of decoded audio: 32-bit float samples, interleaved by channel.
///
/// This is the Linux stand-in for `AVReadOnlyAudioPCMBuffer` in the audio-provider input of
/// ``MusicUnderstandingSession``.
public struct PCMBuffer: Sendable {
    /// Samples per second.
    public var sampleRate: Double
    /// The position of each channel, in interleaving order.
    public var channels: [AudioChannel]
    /// Interleaved samples, `frameCount * channels.count` of them, nominally in -1...1.
    public var samples: [Float]

    /// Number of channels.
    public var channelCount: Int { channels.count }
    /// Number of sample frames (samples per channel).
    public var frameCount: Int { channels.isEmpty ? 0 : samples.count / channels.count }

    /// Creates a buffer from interleaved samples.
    public init(sampleRate: Double, channels: [AudioChannel], samples: [Float]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// Creates a buffer with the default layout for `channelCount` channels.
    public init(sampleRate: Double, channelCount: Int, samples: [Float]) {
        self.init(sampleRate: sampleRate, channels: AudioChannel.defaultLayout(channelCount: channelCount), samples: samples)
    }
}

/// What is known about an input before and after decoding: reported as `source`.
public struct SourceInfo: Sendable, Codable, Hashable {
    /// The path as given by the user (or "-" for standard input).
    public var path: String
    /// Duration in seconds (exact after decoding; the container's estimate before).
    public var duration: Double?
    /// Native sample rate in Hz.
    public var sampleRate: Int?
    /// Native channel count.
    public var channels: Int?
    /// Codec short name, e.g. "mp3", "flac", "pcm_s16le".
    public var codec: String?
    /// Size of the file in bytes when it was analysed (extra field; absent for standard input).
    public var size: Int64?
    /// Modification time of the file when it was analysed, ISO 8601 UTC with nanoseconds
    /// (`2026-12-01T12:27:13.123456789Z`; extra field; absent for standard input). With ``size``
    /// it tells a resumed batch whether the report is still current.
    public var modified: String?

    /// Creates a source description.
    public init(path: String, duration: Double? = nil, sampleRate: Int? = nil, channels: Int? = nil, codec: String? = nil) {
        self.path = path
        self.duration = duration
        self.sampleRate = sampleRate
        self.channels = channels
        self.codec = codec
    }

    enum CodingKeys: String, CodingKey { case path, duration, sampleRate, channels, codec, size, modified }

    /// Writes the source; `duration` is rounded to 1e-6 s, and left out when it is not finite
    /// (an unknown duration, as when it is `nil`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(channels, forKey: .channels)
        try c.encodeIfPresent(codec, forKey: .codec)
        if let duration, duration.isFinite {
            try c.encode((duration * 1_000_000).rounded() / 1_000_000 + 0, forKey: .duration)
        }
        try c.encodeIfPresent(modified, forKey: .modified)
        try c.encode(path, forKey: .path)
        try c.encodeIfPresent(sampleRate, forKey: .sampleRate)
        try c.encodeIfPresent(size, forKey: .size)
    }
}
