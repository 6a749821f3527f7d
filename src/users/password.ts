// users-permissions passwords as Strapi stores them: bcrypt, 10 rounds (the `password` attribute's
// default encryption.rounds), `$2a$` hashes like the bcryptjs 2.x Strapi ships, so Strapi and we each
// verify what the other wrote.
import bcrypt from 'bcryptjs';

const ROUNDS = 10;
// A real hash of a random password: a login for an unknown user spends the same time as a real check.
const DUMMY = '$2a$10$CwTycUXWue0Thq9StjUM0uJ8.jmGbJbGhdg1Ys5I8ooM2TkRxq9Ru';

export async function hashPassword(password: string): Promise<string> {
  // bcryptjs 3 writes the `$2b$` minor by default; the algorithm is the same, the prefix is Strapi's.
  const salt = (await bcrypt.genSalt(ROUNDS)).replace(/^\$2b\$/, '$2a$');
  return bcrypt.hash(password, salt);
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored || !/^\$2[aby]\$\d\d\$/.test(stored)) {
    await bcrypt.compare(password, DUMMY);
    return false;
  }
  return bcrypt.compare(password, stored);
}
