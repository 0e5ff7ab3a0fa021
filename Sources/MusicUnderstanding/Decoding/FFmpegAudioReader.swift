import CFFmpeg
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The FFmpeg side of ``AudioDecoder``: demuxer, decoder and sample-format converter.
///
/// Every stored property has a default, so `deinit` releases whatever was allocated even when
/// `init` throws half-way. All raw pointers stay inside this class.
final class FFmpegAudioReader {
    let path: String
    private(set) var sampleRate = 0
    private(set) var channels: [AudioChannel] = []
    private(set) var codecName = ""
    private(set) var estimatedDuration: Double?
    private(set) var isFinished = false
    private(set) var framesOut = 0

    private var formatContext: UnsafeMutablePointer<AVFormatContext>?
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var converter: OpaquePointer?
    private var outputLayout = AVChannelLayout()
    private var converterInputLayout = AVChannelLayout()
    private var converterInputFormat: Int32 = -1
    private var converterInputRate: Int32 = 0
    private var scratch: UnsafeMutablePointer<Float>?
    private var scratchFrames = 0
    private var streamIndex: Int32 = -1
    private var chunkFrames = 16_384
    private let maximumConsecutiveErrors: Int
    /// Seconds a named pipe may take to get a writer or data before it is given up.
    static let namedPipeWait = 3.0
    /// The descriptor of a named pipe or device opened by hand (FFmpeg reads it as `pipe:N`).
    private var specialFile: Int32 = -1
    /// Asked by FFmpeg between blocking reads; kept alive as long as the format context.
    private let interrupt: CancellationToken?
    /// What that special file is ("a named pipe"), for messages.
    private var specialKind: String?

    private var framePending = false
    private var demuxerFinished = false
    private var decoderFinished = false
    private var consecutiveErrors = 0
    private var skippedPackets = 0
    private var firstSkipTime: Double?
    private var lastError: Int32 = 0
    private var notes: [String] = []
    /// Stream duration the container declares, when it is not a bit-rate guess.
    private var declaredDuration: Double?
    /// For a WAV whose data chunk claims more than the file holds: claimed and present seconds.
    private var wavOverclaim: (declared: Double, available: Double)?
    /// An Ogg file (Vorbis, Opus, FLAC in Ogg): its end is checked for the end-of-stream page.
    private var isOggFile = false

    /// Decoded duration so far in seconds.
    var decodedDuration: Double { sampleRate > 0 ? Double(framesOut) / Double(sampleRate) : 0 }

    /// Damage found so far, or `nil`.
    var damageNote: String? {
        var all = notes
        if skippedPackets > 0, !notes.contains(where: { $0.hasPrefix("decoding stopped") }) {
            let at = firstSkipTime.map { " (first at \(Self.seconds($0)))" } ?? ""
            all.insert("\(skippedPackets) undecodable packet\(skippedPackets == 1 ? "" : "s") skipped\(at): \(FFmpeg.message(lastError))", at: 0)
        }
        return all.isEmpty ? nil : all.joined(separator: "; ")
    }

    init(path: String, rawFormat: RawPCMFormat?, maximumConsecutiveErrors: Int, interrupt: CancellationToken? = nil) throws(AudioDecodingError) {
        self.path = path
        self.interrupt = interrupt
        self.maximumConsecutiveErrors = max(1, maximumConsecutiveErrors)
        FFmpeg.silenceLogs()

        var inputFormat: UnsafePointer<AVInputFormat>?
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        var url: [CChar]
        if path == "-" {
            url = Array("pipe:0".utf8CString)
            // With an interrupt token, a pipe or socket on standard input is read through a
            // non-blocking descriptor of its own (reopened from /proc/self/fd/0, so the
            // writer's and the shell's descriptors keep their flags): FFmpeg then retries
            // every millisecond and asks the interrupt callback in between, so a stalled
            // writer cannot hold a cancelled or timed-out analysis (FFmpeg's avio.c,
            // retry_transfer_wrapper). Without /proc it falls back to a blocking read.
            var info = stat()
            // (Not for raw PCM: the live meter hands out each packet as it arrives, and short
            // non-blocking reads would cut its packets differently.)
            if interrupt != nil, rawFormat == nil, fstat(STDIN_FILENO, &info) == 0,
                (info.st_mode & S_IFMT) == S_IFIFO || (info.st_mode & S_IFMT) == S_IFSOCK
            {
                let fd = open("/proc/self/fd/0", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
                if fd >= 0 {
                    specialFile = fd
                    url = Array("pipe:\(fd)".utf8CString)
                }
            }
        } else if rawFormat == nil, let name = FFmpeg.deviceName(path) {
            // An FFmpeg input device: "alsa:default", "pulse:default", "lavfi:sine=f=1000:d=5".
            inputFormat = try FFmpeg.deviceFormat(name, path: path)
            url = Array(String(path.dropFirst(name.count + 1)).utf8CString)
        } else if Self.isURL(path) {
            url = Array(path.utf8CString)
            // A stalled network source fails after 15 s without data instead of hanging.
            av_dict_set(&options, "rw_timeout", "15000000", 0)
        } else {
            let status = try Self.checkFile(path)
            if status.isSpecial {
                // A named pipe or device: opened without waiting for a writer (a FIFO nobody
                // writes to then reads as empty instead of blocking for ever), then read normally.
                let fd = open(FilePath.cString(path), O_RDONLY | O_NONBLOCK | O_CLOEXEC)
                guard fd >= 0 else { throw Self.systemError(errno, path: path) }
                specialFile = fd
                specialKind = status.kind
                if status.type == UInt32(S_IFIFO) {
                    // A writer that is about to start gets a moment; a pipe nobody writes to is
                    // reported instead of read as empty (a never-opened FIFO polls neither IN nor HUP).
                    var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
                    if poll(&fds, 1, Int32(Self.namedPipeWait * 1000)) == 0 {
                        throw .corruptData(path: path, reason: "a named pipe with no writer: nothing arrived within \(Int(Self.namedPipeWait)) s")
                    }
                }
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
                url = Array("pipe:\(fd)".utf8CString)
            } else {
                // "file:" so that a name with a colon is never taken for a protocol; raw bytes,
                // so that a name that is not UTF-8 opens the file it names.
                url = Array("file:".utf8).map { CChar(bitPattern: $0) } + FilePath.cString(path)
            }
        }

        if let rawFormat {
            guard FFmpeg.sampleRates.contains(rawFormat.sampleRate) else {
                throw .corruptData(path: path, reason: "raw PCM sample rate \(rawFormat.sampleRate) Hz is outside \(FFmpeg.sampleRateText)")
            }
            guard (1...FFmpeg.maximumChannelCount).contains(rawFormat.channels) else {
                throw .corruptData(path: path, reason: "raw PCM channel count \(rawFormat.channels) is outside 1...\(FFmpeg.maximumChannelCount)")
            }
            inputFormat = av_find_input_format(rawFormat.sampleFormat.rawValue)
            guard inputFormat != nil else {
                throw .unsupportedCodec(path: path, codec: rawFormat.sampleFormat.rawValue)
            }
            av_dict_set(&options, "sample_rate", String(rawFormat.sampleRate), 0)
            av_dict_set(&options, "ch_layout", FFmpeg.defaultLayoutName(channelCount: rawFormat.channels), 0)
            // A live meter: hand out every packet (about 0.1 s) as soon as it arrives.
            chunkFrames = 1
        }

        var context: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        guard let allocated = context else { throw .corruptData(path: path, reason: "out of memory") }
        if let interrupt {
            // FFmpeg asks between blocking reads whether to give up (AVIOInterruptCB).
            allocated.pointee.interrupt_callback = AVIOInterruptCB(
                callback: { opaque in
                    guard let opaque else { return 0 }
                    return Unmanaged<CancellationToken>.fromOpaque(opaque).takeUnretainedValue().isCancelled ? 1 : 0
                }, opaque: Unmanaged.passUnretained(interrupt).toOpaque())
        }
        let openResult = avformat_open_input(&context, url, inputFormat, &options)
        formatContext = context  // nil when opening failed: FFmpeg freed it
        guard openResult >= 0, let formatContext else {
            if let specialKind, openResult == FFmpeg.endOfFile || openResult == FFmpeg.invalidData {
                throw .corruptData(path: path, reason: "\(specialKind) that delivered no audio data")
            }
            throw Self.openError(openResult, path: path, isFile: path != "-" && rawFormat == nil && specialKind == nil)
        }
        if rawFormat == nil, specialKind == nil, path != "-", Self.formatName(formatContext) == "wav",
            let wav = WAVHeader(path: path), let problem = wav.problem
        {
            throw .corruptData(path: path, reason: problem)
        }

        // `avformat_find_stream_info` reads packets to fill in stream parameters. Raw PCM needs
        // none of that, and on a pipe it can buffer seconds of a live input, so there it runs
        // only when the header left the audio parameters unknown.
        let isPipe = path == "-"
        if rawFormat == nil && (!isPipe || !Self.hasAudioParameters(formatContext)) {
            let infoResult = avformat_find_stream_info(formatContext, nil)
            if infoResult < 0 {
                throw .corruptData(path: path, reason: FFmpeg.message(infoResult))
            }
        }

        var decoder: UnsafePointer<AVCodec>?
        let best = av_find_best_stream(formatContext, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)
        if best == FFmpeg.streamNotFound || (best < 0 && best != FFmpeg.decoderNotFound) {
            // FFmpeg skips audio streams whose rate or channel count it could not read.
            if let codec = Self.firstAudioCodecName(formatContext) {
                throw .corruptData(path: path, reason: "the \(codec) stream has no readable sample rate or channel count")
            }
            throw .noAudioStream(path: path)
        }
        if best == FFmpeg.decoderNotFound || decoder == nil {
            throw .unsupportedCodec(path: path, codec: Self.firstAudioCodecName(formatContext) ?? "unknown")
        }
        streamIndex = best
        guard let streams = formatContext.pointee.streams, let stream = streams[Int(best)],
            let parameters = stream.pointee.codecpar
        else {
            throw .noAudioStream(path: path)
        }
        for index in 0..<Int(formatContext.pointee.nb_streams) where index != Int(best) {
            streams[index]?.pointee.discard = AVDISCARD_ALL
        }
        codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))

        // Reject absurd headers before the decoder sees them.
        let declaredRate = Int(parameters.pointee.sample_rate)
        let declaredChannels = Int(parameters.pointee.ch_layout.nb_channels)
        if declaredRate < 0 || declaredRate > FFmpeg.maximumSampleRate || (declaredRate > 0 && declaredRate < FFmpeg.minimumSampleRate) {
            throw .corruptData(path: path, reason: "the header declares a sample rate of \(declaredRate) Hz, outside \(FFmpeg.sampleRateText)")
        }
        if declaredChannels < 0 || declaredChannels > FFmpeg.maximumChannelCount {
            throw .corruptData(path: path, reason: "the header declares \(declaredChannels) channels, outside 1...\(FFmpeg.maximumChannelCount)")
        }

        estimatedDuration = Self.duration(of: formatContext, stream: stream)
        if formatContext.pointee.duration_estimation_method != AVFMT_DURATION_FROM_BITRATE,
            stream.pointee.duration != Int64.min, stream.pointee.duration > 0
        {
            declaredDuration = Double(stream.pointee.duration) * av_q2d(stream.pointee.time_base)
        }

        codecContext = avcodec_alloc_context3(decoder)
        guard let codecContext else { throw .corruptData(path: path, reason: "out of memory") }
        let copyResult = avcodec_parameters_to_context(codecContext, parameters)
        guard copyResult >= 0 else { throw .corruptData(path: path, reason: FFmpeg.message(copyResult)) }
        codecContext.pointee.pkt_timebase = stream.pointee.time_base
        let openCodecResult = avcodec_open2(codecContext, decoder, nil)
        guard openCodecResult >= 0 else {
            throw .corruptData(path: path, reason: "cannot open the \(codecName) decoder: \(FFmpeg.message(openCodecResult))")
        }
        packet = av_packet_alloc()
        frame = av_frame_alloc()
        guard packet != nil, let frame else { throw .corruptData(path: path, reason: "out of memory") }

        // The native format is that of the first decoded frame, not the container's claim.
        guard decodeNextFrame() else {
            if skippedPackets > 0 || lastError != 0 {
                throw .corruptData(path: path, reason: "no audio frame could be decoded: \(FFmpeg.message(lastError))")
            }
            if declaredRate == 0 || declaredChannels == 0 {
                throw .corruptData(path: path, reason: "no audio frame could be decoded and the stream parameters are unknown")
            }
            if let announced = estimatedDuration, announced > 0 {
                throw .corruptData(path: path, reason: "no audio frame could be decoded although the header announces \(Self.seconds(announced))")
            }
            throw .zeroLength(path: path)
        }
        framePending = true
        let rate = Int(frame.pointee.sample_rate)
        let count = Int(frame.pointee.ch_layout.nb_channels)
        guard FFmpeg.sampleRates.contains(rate) else {
            throw .corruptData(path: path, reason: "decoded sample rate \(rate) Hz is outside \(FFmpeg.sampleRateText)")
        }
        guard (1...FFmpeg.maximumChannelCount).contains(count) else {
            throw .corruptData(path: path, reason: "decoded channel count \(count) is outside 1...\(FFmpeg.maximumChannelCount)")
        }
        let layoutResult = cadenza_layout_normalized(&outputLayout, &frame.pointee.ch_layout)
        guard layoutResult >= 0 else { throw .corruptData(path: path, reason: FFmpeg.message(layoutResult)) }
        sampleRate = rate
        if isPipe && rawFormat == nil {
            // Possibly live: hand out about 50 ms at a time rather than 16k frames.
            chunkFrames = max(1, rate / 20)
        }
        channels = FFmpeg.channels(of: &outputLayout)
        guard channels.count == count else {
            throw .corruptData(path: path, reason: "inconsistent channel layout: \(channels.count) positions for \(count) channels")
        }

        isOggFile = rawFormat == nil && specialKind == nil && path != "-" && !Self.isURL(path) && Self.formatName(formatContext) == "ogg"
        if rawFormat == nil, path != "-", Self.formatName(formatContext) == "wav",
            let wav = WAVHeader(path: path), wav.overclaims, let declared = wav.declaredDataBytes,
            parameters.pointee.block_align > 0
        {
            let bytesPerSecond = Double(parameters.pointee.block_align) * Double(rate)
            wavOverclaim = (Double(declared) / bytesPerSecond, Double(wav.availableDataBytes) / bytesPerSecond)
        }
    }

    deinit {
        swr_free(&converter)
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codecContext)
        avformat_close_input(&formatContext)
        av_channel_layout_uninit(&outputLayout)
        av_channel_layout_uninit(&converterInputLayout)
        scratch?.deallocate()
        if specialFile >= 0 { close(specialFile) }
    }

    // MARK: Reading

    /// The next chunk of interleaved float samples, or `nil` at the end.
    func readChunk() -> [Float]? {
        guard !isFinished, let frame else { return nil }
        let channelCount = channels.count
        var chunk: [Float] = []
        chunk.reserveCapacity((chunkFrames + 4096) * channelCount)
        while chunk.count < chunkFrames * channelCount {
            if !framePending { framePending = decodeNextFrame() }
            guard framePending else { break }
            framePending = false
            convert(frame, into: &chunk)
            av_frame_unref(frame)
        }
        if !framePending && decoderFinished {
            finish(into: &chunk)
        }
        return chunk.isEmpty ? nil : chunk
    }

    /// Decodes until a frame is in `frame`; false at the end of the stream or after giving up.
    private func decodeNextFrame() -> Bool {
        guard let codecContext, let formatContext, let packet, let frame else { return false }
        var foreignPackets = 0
        while !decoderFinished {
            let received = avcodec_receive_frame(codecContext, frame)
            if received == 0 {
                consecutiveErrors = 0
                if frame.pointee.nb_samples > 0 { return true }
                av_frame_unref(frame)
                continue
            }
            if received == FFmpeg.endOfFile { decoderFinished = true; break }
            if received != FFmpeg.tryAgain {
                if recordFailure(received) { break }
                continue
            }
            // The decoder wants input.
            if demuxerFinished { decoderFinished = true; break }  // drained and still asking: stop
            let readResult = av_read_frame(formatContext, packet)
            if readResult < 0 {
                if readResult != FFmpeg.endOfFile && !Self.atEndOfInput(formatContext) {
                    if readResult == FFmpeg.invalidData || readResult == FFmpeg.tryAgain {
                        if recordFailure(readResult) { break }
                        continue
                    }
                    notes.append("read error at \(Self.seconds(decodedDuration)): \(FFmpeg.message(readResult))")
                }
                demuxerFinished = true
                _ = avcodec_send_packet(codecContext, nil)  // enter draining mode
                continue
            }
            defer { av_packet_unref(packet) }
            if packet.pointee.stream_index != streamIndex {
                foreignPackets += 1
                if foreignPackets > 1_000_000 { decoderFinished = true; break }
                continue
            }
            let sent = avcodec_send_packet(codecContext, packet)
            if sent < 0 && sent != FFmpeg.tryAgain {
                if recordFailure(sent) { break }
            }
        }
        return false
    }

    /// Counts a failed packet; returns true when decoding should stop.
    private func recordFailure(_ code: Int32) -> Bool {
        lastError = code
        consecutiveErrors += 1
        skippedPackets += 1
        if firstSkipTime == nil { firstSkipTime = decodedDuration }
        if consecutiveErrors >= maximumConsecutiveErrors {
            decoderFinished = true
            if framesOut > 0 || framePending {
                notes.append(
                    "decoding stopped at \(Self.seconds(decodedDuration)) after \(consecutiveErrors) consecutive undecodable packets (\(FFmpeg.message(code)))")
            }
            return true
        }
        return false
    }

    /// Converts `frame` to packed float at the output format and appends it to `chunk`.
    private func convert(_ frame: UnsafeMutablePointer<AVFrame>, into chunk: inout [Float]) {
        if converter == nil || frame.pointee.format != converterInputFormat || frame.pointee.sample_rate != converterInputRate
            || av_channel_layout_compare(&frame.pointee.ch_layout, &converterInputLayout) != 0
        {
            // A new format mid-stream (a chained Ogg, a spliced broadcast): keep the first
            // frame's rate and layout for the whole output.
            if converter != nil { drainConverter(into: &chunk) }
            guard configureConverter(for: frame) else {
                decoderFinished = true
                return
            }
        }
        guard let converter else { return }
        let capacity = Int(swr_get_out_samples(converter, frame.pointee.nb_samples))
        guard capacity > 0, let out = ensureScratch(frames: capacity) else { return }
        let written = cadenza_swr_convert_frame(converter, out, Int32(capacity), frame)
        append(out, frames: Int(written), to: &chunk)
    }

    /// (Re)builds libswresample for the format of `frame`; false when that is impossible.
    private func configureConverter(for frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        swr_free(&converter)
        av_channel_layout_uninit(&converterInputLayout)
        var input = AVChannelLayout()
        guard cadenza_layout_normalized(&input, &frame.pointee.ch_layout) >= 0 else {
            notes.append("unusable channel layout at \(Self.seconds(decodedDuration)); decoding stopped")
            return false
        }
        var output = AVChannelLayout()
        defer { av_channel_layout_uninit(&output); av_channel_layout_uninit(&input) }
        _ = av_channel_layout_copy(&output, &outputLayout)
        let rate = frame.pointee.sample_rate
        var context: OpaquePointer?
        var result = swr_alloc_set_opts2(
            &context, &output, AV_SAMPLE_FMT_FLT, Int32(sampleRate),
            &input, AVSampleFormat(frame.pointee.format), rate, 0, nil)
        if result >= 0, let context { result = swr_init(context) }
        guard result >= 0, let context, rate > 0 else {
            swr_free(&context)
            notes.append("cannot convert the audio at \(Self.seconds(decodedDuration)) (\(FFmpeg.message(result))); decoding stopped")
            return false
        }
        converter = context
        converterInputFormat = frame.pointee.format
        converterInputRate = rate
        _ = av_channel_layout_copy(&converterInputLayout, &frame.pointee.ch_layout)
        return true
    }

    /// Empties the samples libswresample still holds (only a resampling converter holds any).
    private func drainConverter(into chunk: inout [Float]) {
        guard let converter else { return }
        while true {
            let capacity = max(Int(swr_get_out_samples(converter, 0)), 0)
            guard capacity > 0, let out = ensureScratch(frames: capacity) else { return }
            let written = cadenza_swr_convert_frame(converter, out, Int32(capacity), nil)
            guard written > 0 else { return }
            append(out, frames: Int(written), to: &chunk)
        }
    }

    private func append(_ out: UnsafeMutablePointer<Float>, frames: Int, to chunk: inout [Float]) {
        guard frames > 0 else { return }
        chunk.append(contentsOf: UnsafeBufferPointer(start: out, count: frames * channels.count))
        framesOut += frames
    }

    private func ensureScratch(frames: Int) -> UnsafeMutablePointer<Float>? {
        if frames > scratchFrames {
            scratch?.deallocate()
            let size = max(frames, 4096)
            scratch = UnsafeMutablePointer<Float>.allocate(capacity: size * channels.count)
            scratchFrames = size
        }
        return scratch
    }

    /// End of input: drain the converter and note a shortfall against the header.
    private func finish(into chunk: inout [Float]) {
        drainConverter(into: &chunk)
        isFinished = true
        let decoded = decodedDuration
        if let claim = wavOverclaim {
            notes.append("data ends early at \(Self.seconds(decoded)) (the WAV header announces \(Self.seconds(claim.declared)))")
        } else if isOggFile, OggEnd.fileEndsWithEndOfStream(path: path) == false {
            notes.append("data ends early at \(Self.seconds(decoded)) (the Ogg stream has no end-of-stream page: truncated)")
        } else if let declared = declaredDuration, decoded < declared - max(0.1, 0.01 * declared) {
            notes.append("data ends early at \(Self.seconds(decoded)) (the header announces \(Self.seconds(declared)))")
        }
    }

    // MARK: Helpers

    private static func seconds(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return "\(tenths) s"
    }

    private static func atEndOfInput(_ context: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        guard let pb = context.pointee.pb else { return true }
        return avio_feof(pb) != 0
    }

    /// True for "scheme://..." (http, https, rtmp, file, ...) when no local file has that name.
    private static func isURL(_ path: String) -> Bool {
        guard let range = path.range(of: "://"), range.lowerBound != path.startIndex else { return false }
        let scheme = path[..<range.lowerBound]
        guard scheme.first?.isLetter == true,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else {
            return false
        }
        var info = stat()
        return stat(path, &info) != 0
    }

    /// Fails fast, with the file named, when the path cannot be a readable audio file; what
    /// `stat` says of it otherwise.
    private static func checkFile(_ path: String) throws(AudioDecodingError) -> FilePath.Status {
        let info: FilePath.Status
        switch FilePath.status(path) {
        case .success(let s): info = s
        case .failure(let error): throw systemError(error.code, path: path)
        }
        if info.isDirectory {
            if case .failure(let error) = FilePath.contentsOfDirectory(path) {
                if error.code == EACCES || error.code == EPERM { throw .permissionDenied(path: path) }
                throw .unreadable(path: path, reason: "a folder that cannot be listed: \(error)")
            }
            throw .corruptData(path: path, reason: "a directory, not an audio file")
        }
        if info.isRegularFile && info.size == 0 { throw .corruptData(path: path, reason: "the file is empty: 0 bytes") }
        if !FilePath.isReadable(path) && (errno == EACCES || errno == EPERM) { throw .permissionDenied(path: path) }
        return info
    }

    /// The error for a failed system call on `path`.
    private static func systemError(_ code: Int32, path: String) -> AudioDecodingError {
        switch code {
        case EACCES, EPERM: .permissionDenied(path: path)
        case ENOENT, ENOTDIR: .fileNotFound(path: path)
        default: .unreadable(path: path, reason: String(cString: strerror(code)))
        }
    }

    private static func openError(_ code: Int32, path: String, isFile: Bool) -> AudioDecodingError {
        switch code {
        case FFmpeg.noSuchFile, FFmpeg.httpNotFound: return .fileNotFound(path: path)
        case FFmpeg.httpForbidden: return .permissionDenied(path: path)
        case FFmpeg.accessDenied, FFmpeg.notPermitted:
            // AVERROR(EPERM) is also many demuxers' generic "cannot parse this": permission
            // only when the file really cannot be read, or a server refused a URL; on standard
            // input or a pipe it is the data's fault.
            if isFile ? !FilePath.isReadable(path) : isURL(path) { return .permissionDenied(path: path) }
            return .corruptData(path: path, reason: "not a recognised audio or video format (the demuxer rejected the data)")
        default: break
        }
        // FFmpeg's demuxers reject absurd WAV headers with a bare "invalid data": say why.
        if isFile, let wav = WAVHeader(path: path) {
            if let problem = wav.problem { return .corruptData(path: path, reason: problem) }
        }
        // "Invalid data" and "Invalid argument" (FFmpeg's words for failed probing) add nothing.
        if code == FFmpeg.invalidData || code == FFmpeg.invalidArgument {
            return .corruptData(path: path, reason: "not a recognised audio or video format")
        }
        if code == FFmpeg.endOfFile {
            return .corruptData(path: path, reason: "the data ends, or is damaged, inside the header")
        }
        return .corruptData(path: path, reason: "cannot open: \(FFmpeg.message(code))")
    }

    private static func formatName(_ context: UnsafeMutablePointer<AVFormatContext>) -> String? {
        guard let format = context.pointee.iformat, let name = format.pointee.name else { return nil }
        return String(cString: name)
    }

    /// True when some audio stream already has a sample rate and a channel count.
    private static func hasAudioParameters(_ context: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        guard let streams = context.pointee.streams else { return false }
        for index in 0..<Int(context.pointee.nb_streams) {
            if let parameters = streams[index]?.pointee.codecpar, parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO,
                parameters.pointee.sample_rate > 0, parameters.pointee.ch_layout.nb_channels > 0
            {
                return true
            }
        }
        return false
    }

    /// The codec name of the first audio stream; for a codec FFmpeg does not know at all,
    /// the container's codec tag.
    private static func firstAudioCodecName(_ context: UnsafeMutablePointer<AVFormatContext>) -> String? {
        guard let streams = context.pointee.streams else { return nil }
        for index in 0..<Int(context.pointee.nb_streams) {
            if let parameters = streams[index]?.pointee.codecpar, parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
                if parameters.pointee.codec_id == AV_CODEC_ID_NONE {
                    return "unknown, codec tag 0x" + String(parameters.pointee.codec_tag, radix: 16)
                }
                return String(cString: avcodec_get_name(parameters.pointee.codec_id))
            }
        }
        return nil
    }

    /// The container's estimate of the stream duration in seconds.
    private static func duration(
        of context: UnsafeMutablePointer<AVFormatContext>,
        stream: UnsafeMutablePointer<AVStream>
    ) -> Double? {
        if stream.pointee.duration != Int64.min, stream.pointee.duration > 0 {
            return Double(stream.pointee.duration) * av_q2d(stream.pointee.time_base)
        }
        if context.pointee.duration != Int64.min, context.pointee.duration > 0 {
            return Double(context.pointee.duration) / Double(AV_TIME_BASE)
        }
        return nil
    }
}
