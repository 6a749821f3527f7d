// Strapi's document ids (cuid2's shape): 24 characters, a lower-case letter first, then letters and digits.
import { randomInt } from 'node:crypto';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const ALPHABET = `${LETTERS}0123456789`;

export function newDocumentId(): string {
  let id = LETTERS[randomInt(26)];
  while (id.length < 24) id += ALPHABET[randomInt(36)];
  return id;
}
