//! The QR Code mask choice (ISO/IEC 18004 7.8.3), made exactly as
//! `qrcodegen` makes it (its penalty rules N1 to N4, the lowest penalty,
//! the lowest mask number on a tie), from one encoding instead of eight
//! trials.
//!
//! qrcodegen's automatic choice applies each of the eight masks to the
//! whole matrix, scores it and takes the mask off again, module by module,
//! with bounds-checked indexing. Here the symbol is encoded once with mask
//! 0, mask 0 is taken off its data modules, and each candidate is scored:
//! on rows and columns of bits up to version 11, on a byte grid above. The
//! result is the matrix qrcodegen's own choice draws (tests compare them,
//! module for module).

use qrcodegen::{QrCode, QrCodeEcc};

/// Penalty weights, as qrcodegen (and the standard) give them.
const PENALTY_N1: i32 = 3;
const PENALTY_N2: i32 = 3;
const PENALTY_N3: i32 = 40;
const PENALTY_N4: i32 = 10;

/// The modules, row by row (`true` dark), of `code`'s symbol under the mask
/// of lowest penalty. `code` must have been encoded with mask 0.
pub(crate) fn with_best_mask(code: &QrCode) -> Vec<bool> {
    debug_assert_eq!(code.mask().value(), 0);
    let n = code.size() as usize;
    let function = function_modules(n);
    // The symbol without a mask: mask 0 taken off the data modules. The
    // format modules still hold mask 0's format; each candidate rewrites them.
    let unmasked: Vec<u8> = (0..n * n)
        .map(|i| {
            let (x, y) = (i % n, i / n);
            let dark = code.get_module(x as i32, y as i32);
            u8::from(dark ^ (!function[i] && inverts(0, x, y)))
        })
        .collect();
    let ecl = format_ecl(code.error_correction_level());
    let best = if n <= 64 {
        best_mask_by_rows(&unmasked, &function, n, ecl)
    } else {
        best_mask_by_modules(&unmasked, &function, n, ecl)
    };
    let mut grid = vec![0u8; n * n];
    masked(&unmasked, &function, n, best, ecl, &mut grid);
    grid.into_iter().map(|m| m != 0).collect()
}

/// The first mask of lowest penalty: `penalty` on the byte grid, for any
/// size (versions 12 to 40; the reference the row scoring is tested against).
fn best_mask_by_modules(unmasked: &[u8], function: &[bool], n: usize, ecl: u32) -> u8 {
    let mut grid = vec![0u8; n * n];
    first_of_lowest_penalty(|mask| {
        masked(unmasked, function, n, mask, ecl, &mut grid);
        penalty(&grid, n)
    })
}

/// The mask whose `penalty` is lowest, the lowest mask number on a tie.
fn first_of_lowest_penalty(mut penalty: impl FnMut(u8) -> i32) -> u8 {
    // `min_by_key` keeps the first of equal minima.
    (0..8u8).min_by_key(|&mask| penalty(mask)).unwrap_or(0)
}

/// As [`best_mask_by_modules`] for a symbol of at most 64 modules a side
/// (versions 1 to 11, the sizes labels carry): each row and column is one
/// `u64` (bit x is column x), masks are applied a row at a time, runs are
/// found from bit transitions and 2 x 2 blocks and dark modules counted with
/// `count_ones`.
fn best_mask_by_rows(unmasked: &[u8], function: &[bool], n: usize, ecl: u32) -> u8 {
    let row_bits = |y: usize, dark: &dyn Fn(usize) -> bool| -> u64 {
        (0..n)
            .filter(|&x| dark(y * n + x))
            .fold(0, |w, x| w | 1 << x)
    };
    let data: Vec<u64> = (0..n).map(|y| row_bits(y, &|i| unmasked[i] != 0)).collect();
    let maskable: Vec<u64> = (0..n).map(|y| row_bits(y, &|i| !function[i])).collect();
    let mut rows = vec![0u64; n];
    let mut columns = vec![0u64; n];
    first_of_lowest_penalty(|mask| {
        let pattern = &MASK_ROWS[usize::from(mask)];
        for y in 0..n {
            rows[y] = data[y] ^ (pattern[y % MASK_PERIOD] & maskable[y]);
        }
        draw_format_bits_in_rows(&mut rows, n, ecl, mask);
        row_penalty(&rows, &mut columns, n)
    })
}

/// Rows repeat every 12 under every mask (periods 1, 2, 3, 4 and 6 in y).
const MASK_PERIOD: usize = 12;

/// Per mask, the modules it inverts in rows 0 to 11, columns 0 to 63.
const MASK_ROWS: [[u64; MASK_PERIOD]; 8] = {
    let mut table = [[0u64; MASK_PERIOD]; 8];
    let mut mask = 0;
    while mask < 8 {
        let mut y = 0;
        while y < MASK_PERIOD {
            let mut x = 0;
            while x < 64 {
                let inverted = inverts(mask as u8, x, y);
                if inverted {
                    table[mask][y] |= 1 << x;
                }
                x += 1;
            }
            y += 1;
        }
        mask += 1;
    }
    table
};

/// [`draw_format_bits`] on rows of bits.
fn draw_format_bits_in_rows(rows: &mut [u64], n: usize, ecl: u32, mask: u8) {
    let bits = format_bits(ecl, mask);
    for (x, y, dark) in format_modules(n, bits) {
        rows[y] = rows[y] & !(1 << x) | u64::from(dark) << x;
    }
}

/// [`penalty`] of the symbol in `rows`; `columns` is scratch space.
fn row_penalty(rows: &[u64], columns: &mut [u64], n: usize) -> i32 {
    let mut result = 0;
    columns.fill(0);
    for (y, &row) in rows.iter().enumerate() {
        result += bit_line_penalty(row, n);
        let mut dark = row;
        while dark != 0 {
            columns[dark.trailing_zeros() as usize] |= 1 << y;
            dark &= dark - 1;
        }
    }
    for &column in columns.iter() {
        result += bit_line_penalty(column, n);
    }
    // 2 x 2 blocks of one colour: a module equal to its right neighbour,
    // to the one below, and that one to its right neighbour.
    let inner = (1u64 << (n - 1)) - 1;
    for pair in rows.windows(2) {
        let (top, bottom) = (pair[0], pair[1]);
        let same = !(top ^ top >> 1) & !(top ^ bottom) & !(bottom ^ bottom >> 1) & inner;
        result += same.count_ones() as i32 * PENALTY_N2;
    }
    let dark = rows.iter().map(|r| r.count_ones() as i32).sum::<i32>();
    let total = (n * n) as i32;
    let k = ((dark * 20 - total * 10).abs() + total - 1) / total - 1;
    result + k * PENALTY_N4
}

/// [`line_penalty`] of a line of `n` modules given as bits (bit x is
/// module x, set when dark).
///
/// A finder-like pattern of module width w has a dark run of exactly 3w.
/// Most lines have no dark run of 6, 9, 12... modules (a finder pattern's
/// edge is a run of 7), so only patterns of width 1 can occur, and both
/// rules are then found for every position at once with shifts; the others
/// are walked run by run.
fn bit_line_penalty(line: u64, n: usize) -> i32 {
    // The line from bit 8 on, light on either side: outside the symbol the
    // light border (qrcodegen adds the symbol's size to the first and last
    // runs for N3, which only asks for 4 light modules at most here).
    let dark = u128::from(line & line_mask(n)) << 8;
    let light = !dark;
    let runs_of_six = dark & dark >> 1 & dark >> 2 & dark >> 3 & dark >> 4 & dark >> 5;
    if runs_of_six != 0 && has_wide_core_run(line & line_mask(n)) {
        return run_line_penalty(line, n);
    }
    let inside = u128::from(line_mask(n)) << 8;
    long_run_penalty(dark) + long_run_penalty(light & inside) + finder_penalty(dark, light)
}

/// Whether `dark` has a run of 6, 9, 12... set bits: the dark core of a
/// finder-like pattern of module width 2 or more.
fn has_wide_core_run(dark: u64) -> bool {
    let mut rest = dark;
    while rest != 0 {
        let start = rest.trailing_zeros();
        let length = (!(rest >> start)).trailing_zeros();
        if length >= 6 && length % 3 == 0 {
            return true;
        }
        // `length` < 64: a line has at most 61 modules.
        rest &= !(((1u64 << length) - 1) << start);
    }
    false
}

/// The bits of a line of `n` modules.
fn line_mask(n: usize) -> u64 {
    u64::MAX >> (64 - n)
}

/// N1 of every run of set bits in `bits`: 3 for five, 1 more for each
/// after. A run of length l >= 5 holds l - 4 windows of five set bits, one
/// of them at its start: N1 - 1 more for that one gives l - 5 + N1.
fn long_run_penalty(bits: u128) -> i32 {
    // Bit i: bits i to i + 4 are set.
    let fives = bits & bits >> 1 & bits >> 2 & bits >> 3 & bits >> 4;
    let run_starts = fives & !(bits << 1);
    fives.count_ones() as i32 + run_starts.count_ones() as i32 * (PENALTY_N1 - 1)
}

/// N3 where every finder-like pattern has module width 1: dark, light,
/// dark 3, light, dark (1:1:3:1:1) with a light module on either side,
/// counted once for 4 light modules after it and once for 4 before.
fn finder_penalty(dark: u128, light: u128) -> i32 {
    let core = light << 1
        & dark
        & light >> 1
        & dark >> 2
        & dark >> 3
        & dark >> 4
        & light >> 5
        & dark >> 6
        & light >> 7;
    let four_before = light << 1 & light << 2 & light << 3 & light << 4;
    let four_after = light >> 7 & light >> 8 & light >> 9 & light >> 10;
    ((core & four_before).count_ones() + (core & four_after).count_ones()) as i32 * PENALTY_N3
}

/// [`line_penalty`] of a line of `n` modules given as bits, run by run.
fn run_line_penalty(line: u64, n: usize) -> i32 {
    let mut result = 0;
    // As in `line_penalty`: the line starts in a light run of length 0.
    let mut colour = 0u8;
    let mut run = 0usize;
    let mut history = FinderPenalty::new(n);
    let mut at = 0;
    while at < n {
        let rest = line >> at;
        let module = (rest & 1) as u8;
        let length = (if module == 1 { !rest } else { rest }.trailing_zeros() as usize).min(n - at);
        if module == colour {
            run += length;
        } else {
            result += same_colour_penalty(run);
            history.add(run);
            if colour == 0 {
                result += history.count_patterns() * PENALTY_N3;
            }
            colour = module;
            run = length;
        }
        at += length;
    }
    result += same_colour_penalty(run);
    result + history.terminate_and_count(colour, run) * PENALTY_N3
}

/// N1 of one finished run: 3 for five modules, 1 more for each after.
fn same_colour_penalty(run: usize) -> i32 {
    match run {
        0..=4 => 0,
        _ => PENALTY_N1 + (run - 5) as i32,
    }
}

/// Whether mask `mask` inverts the module at (x, y) (when it is a data module).
const fn inverts(mask: u8, x: usize, y: usize) -> bool {
    match mask {
        0 => (x + y) % 2 == 0,
        1 => y % 2 == 0,
        2 => x % 3 == 0,
        3 => (x + y) % 3 == 0,
        4 => (x / 3 + y / 2) % 2 == 0,
        5 => x * y % 2 + x * y % 3 == 0,
        6 => (x * y % 2 + x * y % 3) % 2 == 0,
        _ => ((x + y) % 2 + x * y % 3) % 2 == 0,
    }
}

/// The error correction level's two format bits.
fn format_ecl(ecl: QrCodeEcc) -> u32 {
    match ecl {
        QrCodeEcc::Low => 1,
        QrCodeEcc::Medium => 0,
        QrCodeEcc::Quartile => 3,
        QrCodeEcc::High => 2,
    }
}

/// `grid` = `unmasked` under `mask`, with that mask's format bits.
fn masked(unmasked: &[u8], function: &[bool], n: usize, mask: u8, ecl: u32, grid: &mut [u8]) {
    for y in 0..n {
        for x in 0..n {
            let i = y * n + x;
            grid[i] = unmasked[i] ^ u8::from(!function[i] && inverts(mask, x, y));
        }
    }
    draw_format_bits(grid, n, ecl, mask);
}

/// The 15 format bits (level and mask, BCH-protected) in both their places,
/// and the dark module beside the second copy.
fn draw_format_bits(grid: &mut [u8], n: usize, ecl: u32, mask: u8) {
    for (x, y, dark) in format_modules(n, format_bits(ecl, mask)) {
        grid[y * n + x] = u8::from(dark);
    }
}

/// Each format module of a symbol `n` modules wide, (x, y, dark), for the
/// format `bits`: both copies, as qrcodegen places them, then the module
/// that is always dark.
fn format_modules(n: usize, bits: u32) -> impl Iterator<Item = (usize, usize, bool)> {
    let bit = move |i: usize| (bits >> i) & 1 != 0;
    let first = (0..6)
        .map(move |i| (8, i, bit(i)))
        .chain([(8, 7, bit(6)), (8, 8, bit(7)), (7, 8, bit(8))])
        .chain((9..15).map(move |i| (14 - i, 8, bit(i))));
    let second = (0..8)
        .map(move |i| (n - 1 - i, 8, bit(i)))
        .chain((8..15).map(move |i| (8, n - 15 + i, bit(i))));
    first.chain(second).chain([(8, n - 8, true)])
}

/// The 15 format bits of level `ecl` and `mask`, BCH-protected and masked.
fn format_bits(ecl: u32, mask: u8) -> u32 {
    let data = ecl << 3 | u32::from(mask);
    let mut rem = data;
    for _ in 0..10 {
        rem = (rem << 1) ^ ((rem >> 9) * 0x537);
    }
    (data << 10 | rem) ^ 0x5412
}

/// Which modules of a symbol `n` modules wide are function modules (finder
/// patterns with their separators, timing, alignment, format and version
/// information, the dark module): the ones no mask inverts.
fn function_modules(n: usize) -> Vec<bool> {
    let version = (n - 17) / 4;
    let mut function = vec![false; n * n];
    let mut mark = |x: usize, y: usize| function[y * n + x] = true;
    for i in 0..n {
        mark(6, i);
        mark(i, 6);
    }
    // Finder patterns and separators: 9 x 9 around each centre, clipped.
    for (cx, cy) in [(3, 3), (n - 4, 3), (3, n - 4)] {
        for y in cy.saturating_sub(4)..(cy + 5).min(n) {
            for x in cx.saturating_sub(4)..(cx + 5).min(n) {
                mark(x, y);
            }
        }
    }
    let positions = alignment_positions(version, n);
    let last = positions.len().saturating_sub(1);
    for (i, &ax) in positions.iter().enumerate() {
        for (j, &ay) in positions.iter().enumerate() {
            // Not on the three finder corners.
            if (i == 0 && (j == 0 || j == last)) || (i == last && j == 0) {
                continue;
            }
            for y in ay - 2..=ay + 2 {
                for x in ax - 2..=ax + 2 {
                    mark(x, y);
                }
            }
        }
    }
    // Format information (both copies) and the dark module.
    for i in 0..9 {
        mark(8, i);
        mark(i, 8);
    }
    for i in 0..8 {
        mark(n - 1 - i, 8);
        mark(8, n - 1 - i);
    }
    // Version information, from version 7.
    if version >= 7 {
        for i in 0..18 {
            let (a, b) = (n - 11 + i % 3, i / 3);
            mark(a, b);
            mark(b, a);
        }
    }
    function
}

/// Centres of the alignment patterns on each axis, ascending.
fn alignment_positions(version: usize, n: usize) -> Vec<usize> {
    if version == 1 {
        return Vec::new();
    }
    let count = version / 7 + 2;
    let step = if version == 32 {
        26
    } else {
        (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
    };
    let mut positions: Vec<usize> = (0..count - 1).map(|i| n - 7 - i * step).collect();
    positions.push(6);
    positions.reverse();
    positions
}

/// qrcodegen's penalty score of the symbol in `grid` (`n` x `n`).
fn penalty(grid: &[u8], n: usize) -> i32 {
    let mut result = 0;
    for y in 0..n {
        result += line_penalty((0..n).map(|x| grid[y * n + x]), n);
    }
    for x in 0..n {
        result += line_penalty((0..n).map(|y| grid[y * n + x]), n);
    }
    // 2 x 2 blocks of one colour.
    for y in 0..n - 1 {
        let (row, next) = (&grid[y * n..(y + 1) * n], &grid[(y + 1) * n..(y + 2) * n]);
        for x in 0..n - 1 {
            let c = row[x];
            if c == row[x + 1] && c == next[x] && c == next[x + 1] {
                result += PENALTY_N2;
            }
        }
    }
    // Balance of dark and light modules.
    let dark: i32 = grid.iter().map(|&m| i32::from(m)).sum();
    let total = (n * n) as i32;
    let k = ((dark * 20 - total * 10).abs() + total - 1) / total - 1;
    result + k * PENALTY_N4
}

/// Runs of five or more of one colour (N1) and finder-like patterns (N3)
/// along one row or column.
fn line_penalty(line: impl Iterator<Item = u8>, n: usize) -> i32 {
    let mut result = 0;
    let mut colour = 0u8;
    let mut run = 0usize;
    let mut history = FinderPenalty::new(n);
    for module in line {
        if module == colour {
            run += 1;
            if run == 5 {
                result += PENALTY_N1;
            } else if run > 5 {
                result += 1;
            }
        } else {
            history.add(run);
            if colour == 0 {
                result += history.count_patterns() * PENALTY_N3;
            }
            colour = module;
            run = 1;
        }
    }
    result + history.terminate_and_count(colour, run) * PENALTY_N3
}

/// The last seven run lengths of a line (qrcodegen's `FinderPenalty`): the
/// light border around the symbol counts as light. Kept in a ring, so that
/// adding a run moves nothing.
struct FinderPenalty {
    size: usize,
    runs: [usize; 8],
    /// Where the newest run is.
    newest: usize,
}

impl FinderPenalty {
    fn new(size: usize) -> FinderPenalty {
        FinderPenalty {
            size,
            runs: [0; 8],
            newest: 0,
        }
    }

    /// The run `age` runs before the newest (0: the newest).
    fn run(&self, age: usize) -> usize {
        self.runs[(self.newest + age) & 7]
    }

    fn add(&mut self, mut run: usize) {
        if self.run(0) == 0 {
            // The light border before the first run.
            run += self.size;
        }
        self.newest = (self.newest + 7) & 7;
        self.runs[self.newest] = run;
    }

    /// Right after a light run: 0, 1 or 2 finder-like patterns end here.
    fn count_patterns(&self) -> i32 {
        let n = self.run(1);
        let core = n > 0
            && self.run(2) == n
            && self.run(3) == n * 3
            && self.run(4) == n
            && self.run(5) == n;
        if !core {
            return 0;
        }
        let (newest, oldest) = (self.run(0), self.run(6));
        i32::from(newest >= n * 4 && oldest >= n) + i32::from(oldest >= n * 4 && newest >= n)
    }

    fn terminate_and_count(mut self, colour: u8, mut run: usize) -> i32 {
        if colour != 0 {
            self.add(run);
            run = 0;
        }
        // The light border after the last run.
        self.add(run + self.size);
        self.count_patterns()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qrcodegen::{Mask, QrSegment, Version};

    /// A fixed pseudo-random sequence (xorshift64) from `state`.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// qrcodegen's own automatic choice, and ours from a mask-0 encoding.
    fn both(text: &str, ecl: QrCodeEcc, version: Option<u8>) -> (Vec<bool>, Vec<bool>) {
        let segments = QrSegment::make_segments(text);
        let (min, max) = version.map_or((1, 40), |v| (v, v));
        let encode = |mask| {
            QrCode::encode_segments_advanced(
                &segments,
                ecl,
                Version::new(min),
                Version::new(max),
                mask,
                false,
            )
            .unwrap()
        };
        let auto = encode(None);
        let n = auto.size();
        let theirs = (0..n * n).map(|i| auto.get_module(i % n, i / n)).collect();
        (theirs, with_best_mask(&encode(Some(Mask::new(0)))))
    }

    #[test]
    fn the_matrix_is_qrcodegens_own_choice_for_every_level_and_many_versions() {
        let levels = [
            QrCodeEcc::Low,
            QrCodeEcc::Medium,
            QrCodeEcc::Quartile,
            QrCodeEcc::High,
        ];
        // Versions 1 to 40 (alignment patterns from 2, version information
        // from 7, the odd step of 32), each level, varied content.
        for version in 1..=40u8 {
            for (l, &ecl) in levels.iter().enumerate() {
                let text = format!(
                    "LP{version:02}{l}-{}",
                    "0123456789".repeat(usize::from(version) / 2)
                );
                let (theirs, ours) = both(&text, ecl, Some(version));
                assert!(theirs == ours, "version {version}, level {ecl:?}");
            }
        }
    }

    #[test]
    fn the_matrix_is_qrcodegens_own_choice_for_varied_content() {
        // Contents of the lengths labels carry and of every mode (digits,
        // upper case, bytes), from a fixed generator, so that every mask
        // wins some of them.
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let alphabets: [&[u8]; 3] = [
            b"0123456789",
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 $%*+-./:",
            b"abcdefghijklmnopqrstuvwxyz?=&/.:-_0123456789",
        ];
        let mut chosen = [0usize; 8];
        for i in 0..600 {
            let alphabet = alphabets[i % 3];
            let len = 1 + (next() % 120) as usize;
            let text: String = (0..len)
                .map(|_| char::from(alphabet[(next() % alphabet.len() as u64) as usize]))
                .collect();
            let ecl = [
                QrCodeEcc::Low,
                QrCodeEcc::Medium,
                QrCodeEcc::Quartile,
                QrCodeEcc::High,
            ][i % 4];
            let (theirs, ours) = both(&text, ecl, None);
            assert!(theirs == ours, "{text:?} at {ecl:?}");
            let code = QrCode::encode_text(&text, ecl).unwrap();
            chosen[usize::from(code.mask().value())] += 1;
        }
        assert!(
            chosen.iter().all(|&c| c > 0),
            "every mask chosen: {chosen:?}"
        );
    }

    #[test]
    fn rows_of_bits_score_every_mask_as_the_module_grid_does() {
        for version in 1..=11u8 {
            for ecl in [QrCodeEcc::Low, QrCodeEcc::High] {
                // Digits, which fit every version at every level.
                let text: String = (0..usize::from(version) * 5)
                    .map(|i| char::from(b'0' + (i * 7 % 10) as u8))
                    .collect();
                let code = QrCode::encode_segments_advanced(
                    &QrSegment::make_segments(&text),
                    ecl,
                    Version::new(version),
                    Version::new(version),
                    Some(Mask::new(0)),
                    false,
                )
                .unwrap();
                let n = code.size() as usize;
                let function = function_modules(n);
                let mut grid = vec![0u8; n * n];
                for mask in 0..8 {
                    // A masked symbol, taken into rows of bits.
                    masked(
                        &(0..n * n)
                            .map(|i| u8::from(code.get_module((i % n) as i32, (i / n) as i32)))
                            .collect::<Vec<_>>(),
                        &function,
                        n,
                        mask,
                        format_ecl(ecl),
                        &mut grid,
                    );
                    let rows: Vec<u64> = (0..n)
                        .map(|y| {
                            (0..n)
                                .filter(|&x| grid[y * n + x] != 0)
                                .fold(0, |w, x| w | 1 << x)
                        })
                        .collect();
                    let mut columns = vec![0; n];
                    assert_eq!(
                        row_penalty(&rows, &mut columns, n),
                        penalty(&grid, n),
                        "version {version}, {ecl:?}, mask {mask}"
                    );
                }
            }
        }
    }

    /// Lines of every length up to version 11's, random and built from
    /// finder-like patterns of widths 1 to 3: the shifts and the walk over
    /// runs score each as the module-by-module rules do.
    #[test]
    fn a_line_of_bits_scores_as_the_module_rules_do() {
        let mut random = xorshift(0x9E37_79B9_7F4A_7C15);
        let patterned = |n: usize, random: &mut dyn FnMut() -> u64| {
            let mut line = 0u64;
            let mut x = (random() % 6) as usize;
            while x + 7 < n {
                let width = 1 + (random() % 3) as usize;
                for (i, dark) in [1, 0, 1, 1, 1, 0, 1].iter().enumerate() {
                    for k in 0..width {
                        if *dark == 1 && x + i * width + k < n {
                            line |= 1 << (x + i * width + k);
                        }
                    }
                }
                x += 7 * width + (random() % 9) as usize;
            }
            line
        };
        for n in 21..=61 {
            for round in 0..400 {
                let line = match round % 3 {
                    0 => random(),
                    1 => patterned(n, &mut random),
                    _ => random() & random() | patterned(n, &mut random),
                } & line_mask(n);
                let modules = (0..n).map(|x| (line >> x & 1) as u8);
                assert_eq!(
                    bit_line_penalty(line, n),
                    line_penalty(modules, n),
                    "n {n}, line {line:#x}"
                );
            }
        }
    }
}
