/// Spelling of key tonics: a key is named as the key signature with fewer accidentals names it.
///
/// Major: C G D A E B (5♯, not C♭ with 7♭), D♭ (5♭, not C♯ with 7♯), A♭, E♭, B♭, F.
/// Minor: A E B F♯ C♯ G♯ (5♯, not A♭ minor with 7♭), B♭ (5♭, not A♯ with 7♯), F, C, G, D.
///
/// Ties (six accidentals either way) are resolved as follows, and documented as such:
/// pitch class 6 major is **F♯ major** (the spelling most lead sheets and pop catalogues use),
/// pitch class 3 minor is **E♭ minor** (the spelling of the common-practice repertoire, e.g.
/// Bach WTC I no. 8 prelude, Tchaikovsky, Shostakovich).
enum KeySpelling {
    private static let major: [KeyResult.Tonic] = [.c, .dFlat, .d, .eFlat, .e, .f, .fSharp, .g, .aFlat, .a, .bFlat, .b]
    private static let minor: [KeyResult.Tonic] = [.c, .cSharp, .d, .eFlat, .e, .f, .fSharp, .g, .gSharp, .a, .bFlat, .b]

    /// The key signature of `pitchClass` (0 = C) in `mode`, spelled with the fewer accidentals.
    static func signature(pitchClass: Int, mode: KeyResult.Mode) -> KeyResult.KeySignature {
        let pc = ((pitchClass % 12) + 12) % 12
        return KeyResult.KeySignature(tonic: mode == .major ? major[pc] : minor[pc], mode: mode)
    }

}
