import type { Language } from '@dzpay/contracts';

/** The texts of the password reset pages and of the email, in the dashboard's three languages. */

const en = {
  askTitle: 'Forgotten password',
  askIntro: (minutes: number) =>
    `Enter the email you sign in with. If it belongs to an active account, we email it a link to choose a new password. The link works once, for ${minutes} minutes.`,
  email: 'Email',
  sendLink: 'Email me a link',
  backToSignIn: 'Back to sign-in',
  emailInvalid: 'Enter a valid email address.',
  sentTitle: 'Check your email',
  sent: (minutes: number) =>
    `If this email belongs to an active dashboard account, a link to choose a new password is on its way. It works once, within ${minutes} minutes.`,
  sentHint:
    'Nothing after a few minutes? Look in the spam folder, check the address, or ask your team’s owner.',
  throttledEmail: (minutes: number) =>
    `Too many links were asked for this email. Try again in ${minutes} min.`,
  throttledAddress: (minutes: number) =>
    `Too many links were asked from your connection. Try again in ${minutes} min.`,
  unavailable: 'Password reset is unavailable for a moment. Please try again shortly.',
  formExpired: 'This form has expired. Please try again.',
  chooseTitle: 'Choose a new password',
  chooseIntro: 'Once it is set, every session of this account is signed out, on every device.',
  newPassword: 'New password (at least 12 characters)',
  setPassword: 'Set the password',
  linkUnknown: 'This link is not valid. Check that it was copied whole, or ask for a new one.',
  linkExpired: (minutes: number) =>
    `This link has expired: links work for ${minutes} minutes. Ask for a new one.`,
  linkUsed: 'This link was already used: each link works once. Ask for a new one if needed.',
  askAgain: 'Ask for a new link',
  doneTitle: 'Password changed',
  done: 'Your password is changed, and every session of your account was signed out. Sign in with the new password.',
  signIn: 'Sign in',
  mailSubject: 'Choose a new password for the dzpay dashboard',
  mailHello: 'Hello,',
  mailIntro: (email: string) =>
    `Someone asked to choose a new password for the dzpay dashboard account ${email}. To do it, open this link:`,
  mailButton: 'Choose a new password',
  mailExpiry: (minutes: number) =>
    `The link works once, within ${minutes} minutes. Setting the password signs the account out everywhere.`,
  mailIgnore:
    'If you did not ask for this, ignore this email: your password stays as it is, and nobody can use the link without this mailbox.',
};

type Messages = typeof en;

const fr: Messages = {
  askTitle: 'Mot de passe oublié',
  askIntro: (minutes) =>
    `Saisissez l’e-mail avec lequel vous vous connectez. S’il correspond à un compte actif, nous lui envoyons un lien pour choisir un nouveau mot de passe. Le lien sert une fois, pendant ${minutes} minutes.`,
  email: 'E-mail',
  sendLink: 'Recevoir un lien',
  backToSignIn: 'Retour à la connexion',
  emailInvalid: 'Saisissez une adresse e-mail valide.',
  sentTitle: 'Consultez vos e-mails',
  sent: (minutes) =>
    `Si cet e-mail correspond à un compte actif du tableau de bord, un lien pour choisir un nouveau mot de passe est en route. Il sert une fois, dans les ${minutes} minutes.`,
  sentHint:
    'Rien après quelques minutes ? Regardez dans les indésirables, vérifiez l’adresse ou demandez au propriétaire de votre équipe.',
  throttledEmail: (minutes) =>
    `Trop de liens demandés pour cet e-mail. Réessayez dans ${minutes} min.`,
  throttledAddress: (minutes) =>
    `Trop de liens demandés depuis votre connexion. Réessayez dans ${minutes} min.`,
  unavailable:
    'La réinitialisation du mot de passe est momentanément indisponible. Réessayez dans un instant.',
  formExpired: 'Ce formulaire a expiré. Veuillez réessayer.',
  chooseTitle: 'Choisir un nouveau mot de passe',
  chooseIntro:
    'Une fois le mot de passe choisi, toutes les sessions de ce compte sont fermées, sur tous les appareils.',
  newPassword: 'Nouveau mot de passe (12 caractères au moins)',
  setPassword: 'Enregistrer le mot de passe',
  linkUnknown:
    'Ce lien n’est pas valide. Vérifiez qu’il a été copié en entier, ou demandez-en un nouveau.',
  linkExpired: (minutes) =>
    `Ce lien a expiré : un lien sert pendant ${minutes} minutes. Demandez-en un nouveau.`,
  linkUsed:
    'Ce lien a déjà servi : chaque lien ne sert qu’une fois. Demandez-en un nouveau si besoin.',
  askAgain: 'Demander un nouveau lien',
  doneTitle: 'Mot de passe changé',
  done: 'Votre mot de passe est changé et toutes les sessions de votre compte ont été fermées. Connectez-vous avec le nouveau mot de passe.',
  signIn: 'Se connecter',
  mailSubject: 'Choisissez un nouveau mot de passe pour le tableau de bord dzpay',
  mailHello: 'Bonjour,',
  mailIntro: (email) =>
    `Quelqu’un a demandé à choisir un nouveau mot de passe pour le compte ${email} du tableau de bord dzpay. Pour cela, ouvrez ce lien :`,
  mailButton: 'Choisir un nouveau mot de passe',
  mailExpiry: (minutes) =>
    `Le lien sert une fois, dans les ${minutes} minutes. Choisir le mot de passe ferme toutes les sessions du compte.`,
  mailIgnore:
    'Si vous n’avez rien demandé, ignorez cet e-mail : votre mot de passe ne change pas, et personne ne peut utiliser le lien sans accès à cette boîte.',
};

const ar: Messages = {
  askTitle: 'نسيت كلمة المرور',
  askIntro: (minutes) =>
    `أدخل البريد الإلكتروني الذي تسجّل الدخول به. إن كان لحساب نشط، نرسل إليه رابطًا لاختيار كلمة مرور جديدة. يصلح الرابط مرة واحدة، لمدة ${minutes} دقيقة.`,
  email: 'البريد الإلكتروني',
  sendLink: 'أرسل لي رابطًا',
  backToSignIn: 'العودة إلى تسجيل الدخول',
  emailInvalid: 'أدخل عنوان بريد إلكتروني صالحًا.',
  sentTitle: 'تفقّد بريدك الإلكتروني',
  sent: (minutes) =>
    `إن كان هذا البريد لحساب نشط في لوحة التحكم، فرابط اختيار كلمة مرور جديدة في الطريق إليه. يصلح مرة واحدة، خلال ${minutes} دقيقة.`,
  sentHint:
    'لم يصل شيء بعد بضع دقائق؟ ابحث في مجلد الرسائل غير المرغوب فيها، أو تحقّق من العنوان، أو اسأل مالك فريقك.',
  throttledEmail: (minutes) => `طُلبت روابط كثيرة لهذا البريد. أعد المحاولة بعد ${minutes} دقيقة.`,
  throttledAddress: (minutes) => `طُلبت روابط كثيرة من اتصالك. أعد المحاولة بعد ${minutes} دقيقة.`,
  unavailable: 'إعادة تعيين كلمة المرور غير متاحة حاليًا. أعد المحاولة بعد قليل.',
  formExpired: 'انتهت صلاحية هذا النموذج. أعد المحاولة.',
  chooseTitle: 'اختر كلمة مرور جديدة',
  chooseIntro: 'بعد اختيارها تُغلق كل جلسات هذا الحساب، على كل الأجهزة.',
  newPassword: 'كلمة مرور جديدة (12 حرفًا على الأقل)',
  setPassword: 'احفظ كلمة المرور',
  linkUnknown: 'هذا الرابط غير صالح. تأكّد من نسخه كاملًا، أو اطلب رابطًا جديدًا.',
  linkExpired: (minutes) =>
    `انتهت صلاحية هذا الرابط: يصلح الرابط ${minutes} دقيقة. اطلب رابطًا جديدًا.`,
  linkUsed: 'استُعمل هذا الرابط من قبل: كل رابط يصلح مرة واحدة. اطلب رابطًا جديدًا عند الحاجة.',
  askAgain: 'اطلب رابطًا جديدًا',
  doneTitle: 'تغيّرت كلمة المرور',
  done: 'تغيّرت كلمة مرورك وأُغلقت كل جلسات حسابك. سجّل الدخول بكلمة المرور الجديدة.',
  signIn: 'تسجيل الدخول',
  mailSubject: 'اختر كلمة مرور جديدة للوحة تحكم dzpay',
  mailHello: 'مرحبًا،',
  mailIntro: (email) =>
    `طلب أحدهم اختيار كلمة مرور جديدة لحساب لوحة تحكم dzpay ‏${email}. لفعل ذلك افتح هذا الرابط:`,
  mailButton: 'اختر كلمة مرور جديدة',
  mailExpiry: (minutes) =>
    `يصلح الرابط مرة واحدة خلال ${minutes} دقيقة. اختيار كلمة المرور يغلق كل جلسات الحساب.`,
  mailIgnore:
    'إن لم تطلب ذلك فتجاهل هذا البريد: كلمة مرورك تبقى كما هي، ولا يستطيع أحد استعمال الرابط دون هذا البريد.',
};

export const PasswordResetMessages: Record<Language, Messages> = { en, fr, ar };
export type PasswordResetText = Messages;

export function resetTextsOf(language: Language): Messages {
  return PasswordResetMessages[language];
}
