import Foundation
import CFFmpeg

/// Small helpers around the FFmpeg C API: error codes, messages, logging and channel layouts.
enum FFmpeg {
    /// `AVERROR_EOF`.
    static let endOfFile = cadenza_averror_eof()
    /// `AVERROR(EAGAIN)`: the decoder needs input, or has output to hand out first.
    static let tryAgain = cadenza_averror(EAGAIN)
    /// `AVERROR_INVALIDDATA`.
    static let invalidData = cadenza_averror_invaliddata()
    /// `AVERROR_STREAM_NOT_FOUND` from `av_find_best_stream`.
    static let streamNotFound = cadenza_averror_stream_not_found()
    /// `AVERROR_DECODER_NOT_FOUND` from `av_find_best_stream`.
    static let decoderNotFound = cadenza_averror_decoder_not_found()
    /// `AVERROR_HTTP_NOT_FOUND`.
    static let httpNotFound = cadenza_averror_http_not_found()
    /// `AVERROR_HTTP_FORBIDDEN`.
    static let httpForbidden = cadenza_averror_http_forbidden()
    /// `AVERROR(EINVAL)`.
    static let invalidArgument = cadenza_averror(EINVAL)
    /// `AVERROR(ENOENT)`.
    static let noSuchFile = cadenza_averror(ENOENT)
    /// `AVERROR(EACCES)`.
    static let accessDenied = cadenza_averror(EACCES)
    /// `AVERROR(EPERM)`.
    static let notPermitted = cadenza_averror(EPERM)

    /// Highest sample rate accepted; anything above is a damaged or hostile header.
    static let maximumSampleRate = 768_000
    /// Lowest sample rate accepted. BS.1770's K-weighting shelf sits at 1.68 kHz, so loudness
    /// needs a Nyquist frequency above it; and resampling a 1 Hz "file" to the 22.05 kHz feature
    /// rate would multiply it 22050-fold. No real recording is below 4 kHz (telephone audio is 8 kHz,
    /// the oldest sound-effect formats 5.5 kHz), so anything lower is refused as a hostile header.
    static let minimumSampleRate = 4_000
    /// Accepted sample rates.
    static let sampleRates = minimumSampleRate...maximumSampleRate
    /// The accepted range in words, for messages.
    static let sampleRateText = "the supported \(minimumSampleRate)...\(maximumSampleRate) Hz"
    /// Highest channel count accepted (also libswresample's limit).
    static let maximumChannelCount = 64

    private static let quietLogs: Void = {
        av_log_set_level(AV_LOG_QUIET)
    }()

    /// Whether libavdevice's input devices are registered: the library is loaded on the first
    /// device path (once per process), not linked, so that the processes that read files do not
    /// load its 80-odd dependencies (SDL, X11, PulseAudio, ...) at start.
    static let devicesRegistered: Bool = cadenza_register_devices() != 0

    /// Audio input devices of libavdevice that `"name:argument"` paths may name.
    static let audioDevices: Set<String> = ["alsa", "pulse", "oss", "jack", "lavfi", "openal", "sndio"]

    /// The device name of a path written as an FFmpeg input device (`"alsa:hw:0"` → `"alsa"`),
    /// or nil: for any other path, and for an existing file whose name happens to look like that.
    static func deviceName(_ path: String) -> String? {
        guard let colon = path.firstIndex(of: ":") else { return nil }
        let name = String(path[..<colon])
        guard audioDevices.contains(name), (try? FilePath.status(path).get()) == nil else { return nil }
        return name
    }

    /// The input format of the device `name` (from ``deviceName(_:)``) for `path`, loading
    /// libavdevice on first use; an error naming `path` when this FFmpeg cannot open that device
    /// (libavdevice not loadable, or no such device in this build).
    static func deviceFormat(_ name: String, path: String) throws(AudioDecodingError) -> UnsafePointer<AVInputFormat> {
        silenceLogs()
        guard devicesRegistered else {
            throw .unreadable(
                path: path, reason: "FFmpeg's device library (libavdevice) could not be loaded, so the \"\(name)\" input device is not available")
        }
        guard let format = av_find_input_format(name) else {
            throw .unreadable(path: path, reason: "this FFmpeg has no \"\(name)\" input device")
        }
        return format
    }

    /// Silences FFmpeg's log output (once per process): errors reach the caller as `AudioDecodingError`.
    static func silenceLogs() { _ = quietLogs }

    /// FFmpeg's text for an error code, e.g. "Invalid data found when processing input".
    static func message(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(AV_ERROR_MAX_STRING_SIZE))
        let count = buffer.count
        return buffer.withUnsafeMutableBufferPointer { p -> String in
            guard let base = p.baseAddress else { return "FFmpeg error \(code)" }
            if av_strerror(code, base, count) < 0 { return "FFmpeg error \(code)" }
            return String(cString: base)
        }
    }

    /// The speaker positions of a layout, in interleaving order.
    static func channels(of layout: UnsafePointer<AVChannelLayout>) -> [AudioChannel] {
        let count = Int(layout.pointee.nb_channels)
        guard count > 0 else { return [] }
        if layout.pointee.order == AV_CHANNEL_ORDER_UNSPEC {
            return AudioChannel.defaultLayout(channelCount: count)
        }
        return (0..<count).map { index in
            AudioChannel(av_channel_layout_channel_from_index(layout, UInt32(index)))
        }
    }

    /// FFmpeg's name of the default layout for `count` channels ("mono", "stereo", "5.1", ...),
    /// as accepted by the `ch_layout` option of the raw PCM demuxers.
    static func defaultLayoutName(channelCount count: Int) -> String {
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(count))
        defer { av_channel_layout_uninit(&layout) }
        var buffer = [CChar](repeating: 0, count: 128)
        let size = buffer.count
        let written = buffer.withUnsafeMutableBufferPointer { p -> Int32 in
            guard let base = p.baseAddress else { return -1 }
            return av_channel_layout_describe(&layout, base, size)
        }
        guard written > 0 else { return "\(count) channels" }
        return buffer.withUnsafeBufferPointer { p in p.baseAddress.map { String(cString: $0) } ?? "\(count) channels" }
    }
}

extension AudioChannel {
    /// The position of an FFmpeg channel (`AV_CHAN_*`). The LFE channels map to
    /// ``lowFrequency`` and ``lowFrequency2``; positions without an equivalent are ``unknown``.
    init(_ channel: AVChannel) {
        switch channel {
        case AV_CHAN_FRONT_LEFT, AV_CHAN_STEREO_LEFT: self = .frontLeft
        case AV_CHAN_FRONT_RIGHT, AV_CHAN_STEREO_RIGHT: self = .frontRight
        case AV_CHAN_FRONT_CENTER: self = .frontCenter
        case AV_CHAN_LOW_FREQUENCY: self = .lowFrequency
        case AV_CHAN_LOW_FREQUENCY_2: self = .lowFrequency2
        case AV_CHAN_BACK_LEFT: self = .backLeft
        case AV_CHAN_BACK_RIGHT: self = .backRight
        case AV_CHAN_SIDE_LEFT, AV_CHAN_SURROUND_DIRECT_LEFT: self = .sideLeft
        case AV_CHAN_SIDE_RIGHT, AV_CHAN_SURROUND_DIRECT_RIGHT: self = .sideRight
        case AV_CHAN_BACK_CENTER: self = .backCenter
        case AV_CHAN_FRONT_LEFT_OF_CENTER: self = .frontLeftOfCenter
        case AV_CHAN_FRONT_RIGHT_OF_CENTER: self = .frontRightOfCenter
        case AV_CHAN_TOP_CENTER, AV_CHAN_TOP_FRONT_LEFT, AV_CHAN_TOP_FRONT_CENTER, AV_CHAN_TOP_FRONT_RIGHT,
            AV_CHAN_TOP_BACK_LEFT, AV_CHAN_TOP_BACK_CENTER, AV_CHAN_TOP_BACK_RIGHT,
            AV_CHAN_TOP_SIDE_LEFT, AV_CHAN_TOP_SIDE_RIGHT:
            self = .topOrHeight
        default: self = .unknown
        }
    }
}
