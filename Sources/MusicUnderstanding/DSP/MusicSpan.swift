import Foundation

/// Where the music sounds in a recording: from the first to the last frame whose power level
/// rises out of the silence, or out of the noise floor, before the music starts and after it
/// stops. Structure makes that silence a section of its own (``SilentEnds``); rhythm reports no
/// beats in it.
///
/// The level is each STFT frame's power in decibels (``OnsetFeatures/level``). A frame sounds
/// when it lies within ``Settings/depth`` of the loud frames' level (their 95th percentile), or,
/// at an end whose median level lies more than ``Settings/noiseFloorDepth`` under the loud frames
/// (a tape's hiss, a room's air), when it rises ``Settings/noiseFloorMargin`` above that floor.
/// Structure annotations mark these silences (docs/analyses/structure.md, "Silence before and
/// after the music", "Silence over a noise floor").
struct MusicSpan: Sendable {
    /// The settings of the span.
    struct Settings: Sendable, Hashable {
        /// Decibels below the 95th percentile of the frame level under which a frame is silent.
        var depth: Double = 50
        /// Shortest silent stretch at the start or the end that counts, seconds.
        var minimumSeconds: Double = 0.25
        /// Decibels below the loud frames' level under which a recording's first or last
        /// ``minimumSeconds`` are its noise floor (tape hiss, a room), not quiet music; 0 turns
        /// the noise floor off.
        var noiseFloorDepth: Double = 40
        /// Decibels above such a noise floor at which the music starts and stops.
        var noiseFloorMargin: Double = 6
    }

    var settings = Settings()

    /// Where the music sounds in `onset`'s frames (``span(levels:loud:frameRate:duration:)`` on
    /// its ``OnsetFeatures/level`` and ``OnsetFeatures/loudLevel``).
    func span(_ onset: OnsetFeatures, duration: Double) -> (start: Double, end: Double) {
        span(levels: onset.level, loud: onset.loudLevel, frameRate: onset.frameRate, duration: duration)
    }

    /// Where the music sounds, `(start, end)` in seconds within `0 ... duration`, from the frame
    /// `levels` in decibels (``OnsetFeatures/level``, frame `i` centred at `i / frameRate`) and
    /// the loud frames' level `loud`, the 95th percentile of `levels` (``OnsetFeatures/loudLevel``,
    /// `nil` without levels); `(0, duration)` when the ends are not silent long enough, or when
    /// nothing sounds at all.
    func span(levels: [Float], loud: Float?, frameRate: Double, duration: Double) -> (start: Double, end: Double) {
        let whole = (start: 0.0, end: max(0, duration))
        guard frameRate > 0, duration > 0, let loud else { return whole }
        let silence = loud - Float(settings.depth)
        let n = Int((settings.minimumSeconds * frameRate).rounded())
        let opening = max(silence, noiseFloorThreshold(edge: levels.prefix(n), loud: loud))
        let closing = max(silence, noiseFloorThreshold(edge: levels.suffix(n), loud: loud))
        guard loud > -230, let first = levels.firstIndex(where: { $0 >= opening }),
            let last = levels.lastIndex(where: { $0 >= closing })
        else { return whole }
        var start = Double(first) / frameRate
        var end = min(duration, Double(last + 1) / frameRate)
        if start < settings.minimumSeconds { start = 0 }
        if duration - end < settings.minimumSeconds { end = duration }
        guard end > start else { return whole }
        return (start, end)
    }

    /// The level at which the music starts (or stops) over a noise floor at one end, or −∞: when
    /// the median level of the `edge` frames (the recording's first or last
    /// ``Settings/minimumSeconds``) lies more than ``Settings/noiseFloorDepth`` under the `loud`
    /// level, that end is the recording's floor (a tape's hiss, a room's air), and the music is
    /// what rises ``Settings/noiseFloorMargin`` above it. Hiss 40-48 dB under the loud frames lies
    /// above the silence depth (50 dB) and was read as music; quiet music at a recording's very start
    /// or end lies 10-35 dB under them on the real dev set (docs/analyses/structure.md, "Silence
    /// over a noise floor").
    func noiseFloorThreshold(edge: ArraySlice<Float>, loud: Float) -> Float {
        guard settings.noiseFloorDepth > 0, !edge.isEmpty, let floor = Smoothing.quantile(edge, 0.5),
            floor < loud - Float(settings.noiseFloorDepth)
        else { return -.infinity }
        return floor + Float(settings.noiseFloorMargin)
    }

    init(settings: Settings = Settings()) {
        self.settings = settings
    }
}
