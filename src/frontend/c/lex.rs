//! The C lexer (nom combinators): identifiers and keywords, integer,
//! character and string constants, punctuators. Comments and preprocessor
//! lines (`# 1 "file.c"` line markers, leftover `#pragma`s) are skipped.

use super::ast::{IntKind, IntTy, Pos};
use crate::frontend::Diagnostic;
use nom::{
    branch::alt,
    bytes::complete::{tag, take_until, take_while, take_while1},
    character::complete::{anychar, char, satisfy},
    combinator::{opt, recognize},
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
}

const PUNCTS: &[&str] = &[
    "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=",
    "%=", "&=", "^=", "|=", "[", "]", "(", ")", "{", "}", ".", "&", "*", "+", "-", "~", "!", "/", "%", "<", ">", "^",
    "|", "?", ":", ";", "=", ",",
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
        if !plain_decimal && value <= u32::MAX as i128 {
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

/// Skips blanks and comments; returns the rest.
fn blanks(i: &str) -> IResult<&str, ()> {
    let (rest, _) = many0(alt((
        take_while1(|c: char| c.is_whitespace() || c == '\u{feff}'),
        recognize(pair(tag("//"), take_while(|c| c != '\n'))),
        recognize(pair(tag("/*"), pair(take_until("*/"), tag("*/")))),
        // a backslash-newline continuation
        tag("\\\n"),
    )))(i)?;
    Ok((rest, ()))
}

/// Splits `src` into tokens (ending with [`Tok::Eof`]).
pub fn tokenize(src: &str) -> Result<Vec<Token>, Diagnostic> {
    let mut out = vec![];
    let mut rest = src;
    loop {
        rest = blanks(rest).map(|(r, _)| r).unwrap_or(rest);
        let pos = src.len() - rest.len();
        if rest.is_empty() {
            out.push(Token { tok: Tok::Eof, pos });
            return Ok(out);
        }
        if rest.starts_with("/*") {
            return Err(Diagnostic::at(src, pos, "syntax error: unterminated comment"));
        }
        if rest.starts_with('#') && src[..pos].rsplit('\n').next().is_some_and(|l| l.trim().is_empty()) {
            // a preprocessor line (line markers of preprocessed files, pragmas)
            let end = rest.find('\n').unwrap_or(rest.len());
            rest = &rest[end..];
            continue;
        }
        let r = alt((char_const, string, ident, number, punct))(rest);
        match r {
            Ok((r, tok)) => {
                out.push(Token { tok, pos });
                rest = r;
            }
            Err(_) => {
                let what = match rest.chars().next() {
                    Some('"') => "unterminated string literal".to_string(),
                    Some('\'') => "bad character constant".to_string(),
                    Some(c) if c.is_ascii_digit() => "bad numeric constant".to_string(),
                    Some(c) => format!("unexpected character '{c}'"),
                    None => "unexpected end of input".to_string(),
                };
                return Err(Diagnostic::at(src, pos, format!("syntax error: {what}")));
            }
        }
    }
}
