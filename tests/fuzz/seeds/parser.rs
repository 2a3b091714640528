// frame: parser::Lexer<'a>::next_token
pub struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub fn next_token(&mut self) -> Option<u8> {
        let b = *self.src.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }
}

pub(crate) fn count<T: Iterator>(it: T) -> usize {
    it.count()
}
