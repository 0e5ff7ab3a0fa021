import Foundation

extension KeyResult.Tonic {
    /// The tonic in ASCII letter notation: `C`, `C#`, `Db`, ... `B`.
    public var letterName: String {
        switch self {
        case .c: "C"
        case .cSharp: "C#"
        case .dFlat: "Db"
        case .d: "D"
        case .dSharp: "D#"
        case .eFlat: "Eb"
        case .e: "E"
        case .f: "F"
        case .fSharp: "F#"
        case .gFlat: "Gb"
        case .g: "G"
        case .gSharp: "G#"
        case .aFlat: "Ab"
        case .a: "A"
        case .aSharp: "A#"
        case .bFlat: "Bb"
        case .b: "B"
        }
    }
}

extension KeyResult.KeySignature {
    /// A readable name: `F# major`, `Eb minor`.
    public var name: String { "\(tonic.letterName) \(mode.rawValue)" }

    /// The ID3v2 `TKEY` notation (ID3v2.4 §4.2.3), which DJ software also reads from Vorbis
    /// `INITIALKEY` and the MP4 freeform `----:com.apple.iTunes:INITIALKEY`: the tonic letter, `b` or `#`, and `m` for minor —
    /// `C`, `F#`, `Ebm`. At most three characters.
    public var standardNotation: String { tonic.letterName + (mode == .minor ? "m" : "") }

    /// The key's code on the Camelot wheel (Mixed In Key): `8B` is C major, `8A` A minor; one step
    /// round the wheel is a fifth, the same number is the relative major/minor, so neighbouring
    /// codes mix harmonically.
    ///
    /// Major keys: number = (7 · pitch class + 7) mod 12 + 1 with letter `B` (C → 8B, G → 9B,
    /// B → 1B); a minor key has the number of its relative major (three semitones up) and letter `A`.
    public var camelot: String {
        let major = mode == .major ? tonic.pitchClass : (tonic.pitchClass + 3) % 12
        return "\((7 * major + 7) % 12 + 1)\(mode == .major ? "B" : "A")"
    }

    /// The key in Open Key notation (Beatport / Traktor): the Camelot wheel turned so that C major
    /// is `1d` and A minor `1m` — number = (Camelot number + 4) mod 12 + 1, `d` for major, `m` for minor.
    public var openKey: String {
        let major = mode == .major ? tonic.pitchClass : (tonic.pitchClass + 3) % 12
        let camelotNumber = (7 * major + 7) % 12 + 1
        return "\((camelotNumber + 4) % 12 + 1)\(mode == .major ? "d" : "m")"
    }

    /// The JAMS `key_mode` value: `C:major`, `F#:minor`.
    public var jamsValue: String { "\(tonic.letterName):\(mode.rawValue)" }
}

extension KeyResult {
    /// The key that holds for the most time in the timeline (ties: the earliest), the one-word
    /// answer a tag or a table gives; `nil` when the piece has no key.
    public var mainKey: KeySignature? {
        var total: [KeySignature: Double] = [:]
        var order: [KeySignature] = []
        for range in ranges {
            if total[range.value] == nil { order.append(range.value) }
            total[range.value, default: 0] += range.range.duration
        }
        var best: KeySignature?
        var bestTime = -Double.infinity
        for key in order where (total[key] ?? 0) > bestTime {
            best = key
            bestTime = total[key] ?? 0
        }
        return best
    }
}
