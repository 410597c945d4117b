//! The C lexer (nom combinators): identifiers and keywords, integer,
//! character and string constants, punctuators (with `#` and `##` for the
//! preprocessor, [`super::preprocess`]). Comments are skipped; every token
//! records whether it is the first of its line, so that the preprocessor
//! finds its directives. A character that starts no token becomes a
//! [`Tok::Bad`] token, reported only where it is used (not in a group that
//! `#if 0` skips).

use super::ast::{IntKind, IntTy, Pos};
use crate::frontend::Diagnostic;
use nom::{
    branch::alt,
    bytes::complete::{tag, take_until, take_while, take_while1},
    character::complete::{anychar, char, satisfy},
    combinator::{map, opt, recognize},
    multi::many0,
    sequence::{pair, preceded},
    IResult,
};

/// A token.
#[derive(Clone, PartialEq, Debug)]
pub enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// An integer constant with its type.
    Int(i128, IntTy),
    /// A floating-point constant.
    Float,
    /// A character constant (its value as a `char`).
    Char(i64),
    /// A string literal's bytes.
    Str(Vec<u8>),
    /// A punctuator such as `+=`.
    Punct(&'static str),
    /// Text that starts no token, with what is wrong with it (a syntax
    /// error where the parser meets it).
    Bad(String),
    /// The end of the input.
    Eof,
}

/// A token and the byte offset where it starts.
#[derive(Clone, PartialEq, Debug)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Its position.
    pub pos: Pos,
    /// Whether it is the first token of its line (a `#` there starts a directive).
    pub bol: bool,
    /// Whether it follows the previous token without blanks (`f(` of a
    /// function-like macro definition).
    pub glued: bool,
}

const PUNCTS: &[&str] = &[
    "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "[", "]", "(", ")",
    "{", "}", ".", "&", "*", "+", "-", "~", "!", "/", "%", "<", ">", "^", "|", "?", ":", ";", "=", ",", "##", "#",
];

fn punct(i: &str) -> IResult<&str, Tok> {
    for p in PUNCTS {
        if let Some(rest) = i.strip_prefix(p) {
            return Ok((rest, Tok::Punct(p)));
        }
    }
    Err(nom::Err::Error(nom::error::Error::new(i, nom::error::ErrorKind::Tag)))
}

fn ident(i: &str) -> IResult<&str, Tok> {
    let (rest, s) = recognize(pair(
        satisfy(|c| c.is_ascii_alphabetic() || c == '_' || c == '$'),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$'),
    ))(i)?;
    Ok((rest, Tok::Ident(s.to_string())))
}

/// A numeric constant: integers (decimal, octal, hex, with `u`/`l`
/// suffixes) or floating point.
fn number(i: &str) -> IResult<&str, Tok> {
    let (rest, body) = recognize(pair(
        alt((satisfy(|c| c.is_ascii_digit()), preceded(char('.'), satisfy(|c| c.is_ascii_digit())))),
        many0(alt((
            recognize(pair(satisfy(|c| c == 'e' || c == 'E' || c == 'p' || c == 'P'), opt(satisfy(|c| c == '+' || c == '-')))),
            recognize(satisfy(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')),
        ))),
    ))(i)?;
    let lower = body.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    let digits_end = if is_hex {
        2 + lower[2..].find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(lower.len() - 2)
    } else {
        lower.find(|c: char| !c.is_ascii_digit()).unwrap_or(lower.len())
    };
    let (digits, suffix) = lower.split_at(digits_end);
    let is_float = lower.contains('.') || (!is_hex && lower.contains('e')) || (is_hex && lower.contains('p'));
    if is_float || suffix.contains('f') && !is_hex {
        return Ok((rest, Tok::Float));
    }
    let bad = || nom::Err::Failure(nom::error::Error::new(i, nom::error::ErrorKind::Digit));
    let is_octal = !is_hex && digits.len() > 1 && digits.starts_with('0');
    let value = if is_hex {
        i128::from_str_radix(&digits[2..], 16).map_err(|_| bad())?
    } else if is_octal {
        i128::from_str_radix(&digits[1..], 8).map_err(|_| bad())?
    } else {
        digits.parse::<i128>().map_err(|_| bad())?
    };
    let unsigned_suffix = suffix.contains('u');
    let longs = suffix.matches('l').count();
    if !suffix.chars().all(|c| c == 'u' || c == 'l') || longs > 2 || suffix.matches('u').count() > 1 {
        return Err(bad());
    }
    let plain_decimal = !is_hex && !is_octal;
    let mut kind = match longs {
        0 => IntKind::Int,
        1 => IntKind::Long,
        _ => IntKind::LongLong,
    };
    let mut signed = !unsigned_suffix;
    if kind == IntKind::Int && value > i32::MAX as i128 {
        if (unsigned_suffix || !plain_decimal) && value <= u32::MAX as i128 {
            signed = false;
        } else {
            kind = IntKind::LongLong;
        }
    }
    if kind == IntKind::LongLong && value > i64::MAX as i128 {
        signed = false;
    }
    Ok((rest, Tok::Int(value, IntTy { kind, signed })))
}

/// One escape sequence after the backslash, or a plain character.
fn char_unit(i: &str) -> IResult<&str, i64> {
    if let Some(rest) = i.strip_prefix('\\') {
        let (rest, c) = anychar(rest)?;
        let v = match c {
            'n' => 10,
            't' => 9,
            'r' => 13,
            '0'..='7' => {
                let more = rest.chars().take(2).take_while(|d| ('0'..='7').contains(d)).count();
                let v = i64::from_str_radix(&i[1..2 + more], 8).unwrap_or(0);
                return Ok((&rest[more..], v));
            }
            'x' => {
                let (rest, ds) = take_while1(|d: char| d.is_ascii_hexdigit())(rest)?;
                return Ok((rest, i64::from_str_radix(ds, 16).unwrap_or(0)));
            }
            'a' => 7,
            'b' => 8,
            'f' => 12,
            'v' => 11,
            'e' => 27,
            other => other as i64,
        };
        Ok((rest, v))
    } else {
        let (rest, c) = satisfy(|c| c != '\n')(i)?;
        Ok((rest, c as i64))
    }
}

fn char_const(i: &str) -> IResult<&str, Tok> {
    let (rest, _) = opt(alt((tag("L"), tag("u8"), tag("u"), tag("U"))))(i)?;
    let (rest, _) = char('\'')(rest)?;
    let (rest, v) = char_unit(rest)?;
    let (rest, _) = char('\'')(rest)?;
    // a plain char is signed
    Ok((rest, Tok::Char(if v > 127 && v < 256 { v - 256 } else { v })))
}

fn string(i: &str) -> IResult<&str, Tok> {
    let (mut rest, _) = opt(alt((tag("L"), tag("u8"), tag("u"), tag("U"))))(i)?;
    (rest, _) = char('"')(rest)?;
    let mut bytes = vec![];
    loop {
        if let Some(r) = rest.strip_prefix('"') {
            return Ok((r, Tok::Str(bytes)));
        }
        let (r, v) = char_unit(rest)?;
        if v < 256 {
            bytes.push(v as u8);
        } else {
            let mut buf = [0u8; 4];
            bytes.extend(char::from_u32(v as u32).unwrap_or('?').encode_utf8(&mut buf).bytes());
        }
        rest = r;
    }
}

/// One blank: white space (`\n` when it ends a line), a comment, or a
/// backslash-newline continuation (which does not end the line).
fn blank(i: &str) -> IResult<&str, bool> {
    alt((
        map(tag("\\\n"), |_| false),
        map(tag("\\\r\n"), |_| false),
        map(take_while1(|c: char| c.is_whitespace() || c == '\u{feff}'), |s: &str| s.contains('\n')),
        map(recognize(pair(tag("//"), take_while(|c| c != '\n'))), |_| false),
        map(recognize(pair(tag("/*"), pair(take_until("*/"), tag("*/")))), |_| false),
    ))(i)
}

/// Skips blanks and comments; returns the rest and whether a line ended.
fn blanks(i: &str) -> (&str, bool) {
    let (mut rest, mut newline) = (i, false);
    while let Ok((r, nl)) = blank(rest) {
        newline |= nl;
        rest = r;
    }
    (rest, newline)
}

/// Splits `src` into tokens (ending with [`Tok::Eof`]). An unterminated
/// comment is an error; other text that starts no token is a [`Tok::Bad`].
pub fn tokenize(src: &str) -> Result<Vec<Token>, Diagnostic> {
    tokenize_until(src, None)
}

/// [`tokenize`] within a deadline (a timeout diagnostic when it passes).
pub fn tokenize_until(src: &str, deadline: Option<std::time::Instant>) -> Result<Vec<Token>, Diagnostic> {
    let mut out = vec![];
    let mut rest = src;
    let mut bol = true;
    loop {
        let (r, newline) = blanks(rest);
        let glued = r.len() == rest.len();
        rest = r;
        bol |= newline;
        let pos = src.len() - rest.len();
        if rest.is_empty() {
            out.push(Token { tok: Tok::Eof, pos, bol: true, glued });
            return Ok(out);
        }
        if rest.starts_with("/*") {
            return Err(Diagnostic::at(src, pos, "syntax error: unterminated comment"));
        }
        let (r, tok) = match alt((char_const, string, ident, number, punct))(rest) {
            Ok(ok) => ok,
            Err(_) => {
                let c = rest.chars().next().unwrap_or(' ');
                let what = match c {
                    '"' => "unterminated string literal".to_string(),
                    '\'' => "bad character constant".to_string(),
                    c if c.is_ascii_digit() => "bad numeric constant".to_string(),
                    c => format!("unexpected character '{c}'"),
                };
                // skip the rest of the word (or of the line, for quotes)
                let skip = match c {
                    '"' | '\'' => rest.find('\n').unwrap_or(rest.len()).max(1),
                    c if c.is_ascii_digit() => rest.find(|x: char| !x.is_ascii_alphanumeric() && x != '.').unwrap_or(rest.len()),
                    c => c.len_utf8(),
                };
                (&rest[skip..], Tok::Bad(format!("syntax error: {what}")))
            }
        };
        out.push(Token { tok, pos, bol, glued });
        bol = false;
        if out.len().is_multiple_of(65536) && deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            return Err(Diagnostic::timeout());
        }
        rest = r;
    }
}

/// The text of a token as the preprocessor pastes and stringizes it.
pub fn spelling(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => s.clone(),
        Tok::Int(v, ty) => {
            let suffix = match (ty.signed, ty.kind) {
                (true, IntKind::Long) => "L",
                (true, IntKind::LongLong) => "LL",
                (false, IntKind::Long) => "UL",
                (false, IntKind::LongLong) => "ULL",
                (false, _) => "U",
                _ => "",
            };
            format!("{v}{suffix}")
        }
        Tok::Float => "0.0".into(),
        Tok::Char(c) => format!("{c}"),
        Tok::Str(b) => format!("{:?}", String::from_utf8_lossy(b)),
        Tok::Punct(p) => p.to_string(),
        Tok::Bad(_) | Tok::Eof => String::new(),
    }
}
