// Password reset tokens of dashboard users (filled by the password-reset work).
export {};
